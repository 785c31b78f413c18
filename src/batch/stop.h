// Stopping a batch cleanly on SIGUSR1 (a Slurm task's `--signal=B:USR1@300`, forwarded by the
// sweep's task script, `pcglab sweep submit`): the driver finishes the items already running,
// starts no other, commits their outcomes and throws BatchStopped, so the command exits 2 with a
// message and a rerun (or `pcglab sweep resubmit`) resumes from the store.
//
// Every program that links the batch module catches SIGUSR1 from its start (a static installer in
// stop.cc): a signal that arrives before the first batch stops that batch before its first item.
// The request is sticky: once asked, every later stage of the process stops too.
#pragma once

#include <string>

#include "core/check.h"

namespace pcglab::batch {

// Thrown by the driver after a stop request, once the running items are recorded. A SetupError:
// it stops the command (exit 2), never becomes an item's error.
class BatchStopped : public SetupError {
 public:
  using SetupError::SetupError;
};

// True once SIGUSR1 arrived (or request_stop was called).
bool stop_requested();
// What the SIGUSR1 handler does (async-signal-safe).
void request_stop();
// Forgets a request (tests that stop and then resume in one process).
void clear_stop_request();

}  // namespace pcglab::batch
