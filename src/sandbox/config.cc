#include "sandbox/config.h"

namespace pcglab::sandbox {

const char* isolation_name(Isolation isolation) {
  return isolation == Isolation::kSandbox ? "bubblewrap" : "unsafe-no-sandbox";
}

std::string preload_label(const std::vector<Preload>& preload, const std::string& name) {
  if (name.empty()) return {};
  for (const auto& p : preload)
    if (p.name == name && !p.file.empty()) return "the preload " + name + " (" + p.file + ")";
  return "the preload " + name;
}

std::string Reply::describe() const {
  if (ok()) return "ok";
  std::string text = failure.message;
  if (!failure.traceback.empty()) text += "\n" + failure.traceback;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

ItemOutcome Reply::outcome(std::string key) const {
  OrderedJson metadata = OrderedJson::object();
  if (!output.empty()) metadata["output"] = output;
  metadata["seconds"] = seconds;
  if (ok()) {
    metadata["value"] = to_json(*value);
    return ItemOutcome::success(std::move(key), std::move(metadata));
  }
  metadata["cause"] = failure.cause;
  return ItemOutcome::failure(std::move(key), failure.kind, describe(), std::move(metadata));
}

}  // namespace pcglab::sandbox
