#include "pcgrl/jax_standin.h"

#include "pcgrl/jax_standin_source.h"  // generated: kJaxStandinSource

namespace pcglab::pcgrl {

std::string_view jax_standin_source() {
  return kJaxStandinSource;
}

}  // namespace pcglab::pcgrl
