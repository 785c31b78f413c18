// PENDING: a stand-in for check_validity until src/textgame/validity.cc is merged (the lead deletes
// this file at merge). Every call is a setup error: nothing is checked yet.
#include "core/check.h"
#include "textgame/validity.h"

namespace pcglab::textgame {

ValidityResult check_validity(sandbox::WorkerPool&, const std::string&, const std::string&,
                              const ValidityOptions&) {
  throw SetupError("validity is not built yet");
}

}  // namespace pcglab::textgame
