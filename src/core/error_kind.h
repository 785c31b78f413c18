// The kinds of item failure every track shares, and the one exception that carries one.
//
// - ItemStatus: pending (not run yet), ok, or error (an item's status in the run store and logs).
// - ErrorKind: for errors, what kind of failure, so a user (or a loop feeding errors back to an LLM)
//   can tell a bad input from a timeout, a crash of sandboxed code, an LLM failure or a bug.
// - ItemFailure: the one exception that carries an item's failure out of code deep inside the
//   item's work (a reward that raised, an LLM step that got no usable reply): exactly an outcome's
//   kind and message, so the error has one form from where it is made to the report.
// The outcome of an item (key, status, kind, message, requests, seconds, metadata) is
// batch/item_outcome.h; these live in core so that every layer (the sandbox, the store) can name a
// kind without depending on the item kernel.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/check.h"

namespace pcglab {

enum class ItemStatus { kPending, kOk, kError };

enum class ErrorKind {
  kNone,       // not an error
  kBadInput,   // the item's input is malformed, unreadable, or refused by the domain's rules
  kNoOutput,   // the input was read but yields nothing to evaluate (e.g. no code in a response)
  kTimeout,    // a wall-clock limit (a call, a request, a simulation)
  kLimit,      // a resource limit: memory, output size, CPU seconds
  kCrash,      // the code that ran the item died (sandboxed worker, signal)
  kLlm,        // the LLM service failed (HTTP error after retries, empty reply, refusal)
  kEvaluator,  // the evaluator (simulator, classifier, accuracy) could not score the item
  kIo,         // the item's outputs could not be written
  kInternal,   // a bug in pcglab (a broken invariant)
};

const char* status_name(ItemStatus status);  // "pending", "ok", "error"
std::optional<ItemStatus> parse_item_status(std::string_view name);
const char* error_kind_name(ErrorKind kind);  // "bad-input", "no-output", "timeout", ...
std::optional<ErrorKind> parse_error_kind(std::string_view name);

// An item's failure with its kind, thrown inside the item's work: the item boundary
// (core/item_boundary.h, batch::Driver) makes it the item's outcome, this kind and this message
// (as an InputError's message: as it is). Every track throws this one type; none defines its own.
class ItemFailure : public InputError {
 public:
  ItemFailure(ErrorKind kind, const std::string& message) : InputError(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

}  // namespace pcglab
