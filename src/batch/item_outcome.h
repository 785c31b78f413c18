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
// The kinds (ErrorKind, ItemStatus) and the exception that carries a failure (ItemFailure) are
// core/error_kind.h.
#pragma once

#include <string>

#include "core/error_kind.h"
#include "core/json.h"
#include "core/result.h"

namespace pcglab {

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

}  // namespace pcglab
