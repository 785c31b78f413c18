#include "core/registry.h"

namespace pcglab {

std::map<std::string, std::function<RegistryListing()>>& registry_catalogue() {
  static auto* catalogue = new std::map<std::string, std::function<RegistryListing()>>();
  return *catalogue;
}

std::vector<RegistryListing> list_registries() {
  std::vector<RegistryListing> out;
  for (const auto& [kind, list] : registry_catalogue()) out.push_back(list());
  return out;
}

}  // namespace pcglab
