// Registries that tracks fill at static initialisation, so shared code finds what a track provides
// without a central list to edit (OpenSpiel's REGISTER_SPIEL_GAME): letter classifiers, libtorch
// modules, batch stages and mergers, ...
//
//   struct LetterClassifierKind { static constexpr const char* kRegistryKind = "letter-classifiers"; ... };
//   PCGLAB_REGISTER(LetterClassifierKind, "builtin", "the shipped CNN", LetterClassifierKind{...});
//   for (const auto& e : registry<LetterClassifierKind>().entries()) ...
//
// Every Registry<T> also appears in one catalogue by its kind name (registry_catalogue()), which the
// hidden `pcglab cli registry` verb and its test list without knowing T. A registration lives in the
// .cc file of the thing it registers; the pcglab executable and each test area link their modules'
// static libraries whole (cmake/pcglab_module.cmake), so registrations in otherwise unreferenced
// files survive the link. Registering a name twice in one registry is a programming error
// (CheckError at start-up).
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/check.h"

namespace pcglab {

struct RegistryListing {
  std::string kind;
  std::vector<std::pair<std::string, std::string>> entries;  // name, description; sorted by name
};

// Every registry's kind and its lister, in kind order.
std::map<std::string, std::function<RegistryListing()>>& registry_catalogue();
std::vector<RegistryListing> list_registries();

template <class T>
class Registry {
 public:
  struct Entry {
    std::string name;
    std::string description;
    T value;
  };

  void add(Entry entry) {
    const std::lock_guard<std::mutex> lock(mutex_);
    PCGLAB_CHECK(entries_.count(entry.name) == 0)
        << T::kRegistryKind << ": '" << entry.name << "' registered twice";
    std::string name = entry.name;
    entries_.emplace(std::move(name), std::move(entry));
  }

  // The entry named `name`, or null.
  const Entry* find(std::string_view name) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : &it->second;
  }

  // Every entry, sorted by name. Entries are never removed, so the pointers stay valid.
  std::vector<const Entry*> entries() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    std::vector<const Entry*> out;
    for (const auto& [name, e] : entries_) out.push_back(&e);
    return out;
  }

  // "a, b, c": the registered names, for error messages.
  std::string names() const {
    std::string out;
    for (const Entry* e : entries()) out += (out.empty() ? "" : ", ") + e->name;
    return out;
  }

 private:
  template <class U>
  friend Registry<U>& registry();
  Registry() {
    registry_catalogue()[T::kRegistryKind] = [this] {
      RegistryListing l{T::kRegistryKind, {}};
      for (const Entry* e : entries()) l.entries.emplace_back(e->name, e->description);
      return l;
    };
  }

  mutable std::mutex mutex_;
  std::map<std::string, Entry, std::less<>> entries_;  // by name; nodes never move
};

// The one registry of T (created on first use, never destroyed).
template <class T>
Registry<T>& registry() {
  static auto* r = new Registry<T>();
  return *r;
}

template <class T>
struct Registration {
  Registration(std::string name, std::string description, T value) {
    registry<T>().add({std::move(name), std::move(description), std::move(value)});
  }
};

}  // namespace pcglab

#define PCGLAB_REGISTRY_CONCAT_INNER(a, b) a##b
#define PCGLAB_REGISTRY_CONCAT(a, b) PCGLAB_REGISTRY_CONCAT_INNER(a, b)

// PCGLAB_REGISTER(Type, "name", "description", value): adds `value` to registry<Type>() at start-up.
#define PCGLAB_REGISTER(T, name, description, ...)                                                   \
  static const ::pcglab::Registration<T> PCGLAB_REGISTRY_CONCAT(pcglab_registration_, __COUNTER__) { \
    name, description, __VA_ARGS__                                                                   \
  }
