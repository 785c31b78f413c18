// ItemOutcome: what became of one item of a batch (a trial's conversion, a level's simulation, an
// image's classification, an LLM trial, a reward candidate, a generated game). One type for every
// stage of every track, so that logs, the run store, resume and reports read them alike.
//
// - key: the item's stable name within its stage ("team/A/team_A_3"), unique in the stage.
// - status: pending (not run yet), ok, or error.
// - kind: for errors, what kind of failure, so a user (or a loop feeding errors back to an LLM) can
//   tell a bad input from a timeout, a crash of sandboxed code, an LLM failure or a bug.
// - message: names the item and the cause, in words a user can act on.
// - metadata: stage-specific facts (blocks, stability, usage, ...), JSON.
// - requests: requests the item sent to an outside service that may bill them (an LLM server's
//   HTTP requests, retries and failed ones included); 0 for items that call none.
// - seconds: wall-clock time the item's work took in the run that made the outcome (set by the
//   batch driver; kept in its store, never in logs/<stage>.json, so that a resumed run writes the
//   same log bytes as a fresh one). 0 when unknown.
//
// ItemFailure is the one exception that carries an item's failure out of code deep inside the
// item's work (a reward that raised, an LLM step that got no usable reply): exactly an outcome's
// kind and message, so the error has one form from where it is made to the report.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/check.h"
#include "core/json.h"
#include "core/result.h"

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

struct ItemOutcome {
  std::string key;
  ItemStatus status = ItemStatus::kPending;
  ErrorKind kind = ErrorKind::kNone;
  std::string message;
  OrderedJson metadata = OrderedJson::object();
  int requests = 0;
  double seconds = 0;

  bool ok() const { return status == ItemStatus::kOk; }

  static ItemOutcome success(std::string key, OrderedJson metadata = OrderedJson::object());
  static ItemOutcome failure(std::string key, ErrorKind kind, std::string message,
                             OrderedJson metadata = OrderedJson::object());
  // From an ItemError (run_item's result): internal errors get kInternal, others `kind`.
  static ItemOutcome from_error(std::string key, const ItemError& error,
                                ErrorKind kind = ErrorKind::kBadInput);

  // {"key", "status", "kind" (errors only), "message" (errors only), "requests" (when not 0),
  // "metadata"}; and back.
  OrderedJson to_json() const;
  // to_json() and "seconds": the run store's record (logs use to_json, which has no times).
  OrderedJson to_stored_json() const;
  static ItemOutcome from_json(const Json& j);  // throws InputError on a malformed object
  // The same, keeping the metadata's key order (what the batch driver stores and logs).
  static ItemOutcome from_json(const OrderedJson& j);
};

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
