#include "core/named_mutex.h"

#include <map>
#include <memory>
#include <string>

namespace pcglab {

std::mutex& named_mutex(std::string_view name) {
  static std::mutex guard;
  // Never destroyed: a module may still lock a mutex while the process exits.
  static auto* mutexes = new std::map<std::string, std::unique_ptr<std::mutex>, std::less<>>();
  const std::lock_guard<std::mutex> lock(guard);
  auto it = mutexes->find(name);
  if (it == mutexes->end()) it = mutexes->emplace(std::string(name), std::make_unique<std::mutex>()).first;
  return *it->second;
}

}  // namespace pcglab
