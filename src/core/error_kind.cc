#include "core/error_kind.h"

#include <array>
#include <utility>

#include <fmt/format.h>

namespace pcglab {
namespace {

constexpr std::array<std::pair<ErrorKind, const char*>, 10> kKinds{{
    {ErrorKind::kNone, "none"},
    {ErrorKind::kBadInput, "bad-input"},
    {ErrorKind::kNoOutput, "no-output"},
    {ErrorKind::kTimeout, "timeout"},
    {ErrorKind::kLimit, "limit"},
    {ErrorKind::kCrash, "crash"},
    {ErrorKind::kLlm, "llm"},
    {ErrorKind::kEvaluator, "evaluator"},
    {ErrorKind::kIo, "io"},
    {ErrorKind::kInternal, "internal"},
}};

}  // namespace

const char* status_name(ItemStatus status) {
  switch (status) {
    case ItemStatus::kOk: return "ok";
    case ItemStatus::kError: return "error";
    default: return "pending";
  }
}

std::optional<ItemStatus> parse_item_status(std::string_view name) {
  if (name == "ok") return ItemStatus::kOk;
  if (name == "error") return ItemStatus::kError;
  if (name == "pending") return ItemStatus::kPending;
  return std::nullopt;
}

const char* error_kind_name(ErrorKind kind) {
  for (const auto& [k, name] : kKinds)
    if (k == kind) return name;
  return "none";
}

std::optional<ErrorKind> parse_error_kind(std::string_view name) {
  for (const auto& [k, n] : kKinds)
    if (name == n) return k;
  return std::nullopt;
}

}  // namespace pcglab
