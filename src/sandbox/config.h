// Settings of a sandbox worker and the result of one request to it.
//
// Limits are plain data with defaults (Box2D-style definition structs): a track copies
// default_limits(), changes what it needs and passes it to a Worker or WorkerPool. Every limit a
// request can hit is reported by name in the reply's failure, with the ItemOutcome kind a batch
// records (timeout, limit, crash, bad-input), so a loop that feeds errors back to an LLM can say
// "your function ran past 2 s" rather than "it failed".
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "batch/item_outcome.h"
#include "core/json.h"
#include "sandbox/decoded_value.h"
#include "sandbox/value.h"

namespace pcglab::sandbox {

struct Limits {
  double call_timeout_s = 10;   // wall clock per call (or per map message)
  double load_timeout_s = 30;   // wall clock to run the module's top level
  double start_timeout_s = 30;  // wall clock from spawn to "ready" (numpy imported, preload run)
  int memory_mb = 1024;         // RLIMIT_AS of every process in the sandbox
  int cpu_seconds = 3600;       // RLIMIT_CPU: CPU time over a worker's life (a backstop)
  int file_size_mb = 64;        // RLIMIT_FSIZE: largest file (or captured fd output) written
  int open_files = 64;          // RLIMIT_NOFILE
  int processes = 32;           // RLIMIT_NPROC, processes and threads of the sandbox
  int tmp_mb = 64;              // size of the private tmpfs /tmp
  int shm_mb = 64;              // size of the private tmpfs /dev/shm
  int output_kb = 64;           // captured print/fd output kept per request
  int reply_mb = 256;           // largest reply accepted (below 2048: the decoder's limit)
};

// How untrusted code is isolated. kUnsafeNoSandbox runs the same worker without namespaces (the
// rlimits, the environment of PYTHONHASHSEED=0 alone and the seccomp filter still apply); only when
// the user asked for it with --unsafe-no-sandbox on a machine without user namespaces.
enum class Isolation { kSandbox, kUnsafeNoSandbox };
const char* isolation_name(Isolation isolation);  // "bubblewrap", "unsafe-no-sandbox"

// A helper module put in front of the generated code, by its import name ("jax", "jax.numpy",
// "game_base"). Parents of a dotted name are created as empty packages when not preloaded.
struct Preload {
  Preload() = default;
  Preload(std::string name_in, std::string source_in, std::string file_in = {})
      : name(std::move(name_in)), source(std::move(source_in)), file(std::move(file_in)) {}

  std::string name;
  std::string source;
  std::string file;  // where the source came from, for messages ("jnp_stub.py"); may be empty
};

// "the preload NAME" or "the preload NAME (FILE)" when `preload` names one with a file; "" when
// `name` is empty.
std::string preload_label(const std::vector<Preload>& preload, const std::string& name);

struct WorkerConfig {
  Limits limits;
  std::vector<Preload> preload;
  // Host folders bound read-only at the same path inside the sandbox (a track's native Python
  // extension: the poker track's _pcglab_poker); a preload puts them on sys.path.
  std::vector<std::string> ro_binds;
  // Whether the worker (or its zygote) imports numpy at start, before the preload. false: numpy is
  // imported on first use only (an array in a request, or a reply after the code imported numpy
  // itself), which saves its import (~0.3 s of a zygote's start) for preload sets that need no
  // numpy (the poker track's); OPENBLAS_NUM_THREADS=1 and OMP_NUM_THREADS=1 then stay in the
  // worker's environment, so a later import of numpy runs one BLAS thread as it would at start.
  bool numpy = true;
  Isolation isolation = Isolation::kSandbox;
  // kSandbox: fork each worker from a zygote (sandbox/zygote.h: one bwrap + python per preload set
  // that imported numpy once, unless `numpy` is false), each in namespaces of its own; false (or
  // PCGLAB_SANDBOX_ZYGOTE=0 in the environment): one bwrap + python per worker.
  bool zygote = true;
  // Each side of a request polls for the other's message for up to this long, yielding the CPU
  // between polls, before it sleeps in the kernel: pcglab for a reply, the worker for the next
  // request after each reply. A sleeping side's wake-up costs ~40 us on a virtual machine whose
  // idle CPUs halt, twice per call (docs/sandbox.md, "Call round trip"). A side stops spinning
  // when a yield gave its CPU away (the other side or another task runs there: a sleep costs no
  // more), and after a spin that ran out or stopped so spins only before every 8th message until
  // one succeeds. 0: sleep at once. Bounded: an idle worker sleeps and uses no CPU.
  int spin_us = 50;
  std::string python = "/usr/bin/python3";
  std::string bwrap = "/usr/bin/bwrap";
};

// Why a request failed.
//   kind      what a batch records: kBadInput (the code raised, has a syntax error, or returned a
//             value that cannot cross), kTimeout (call/load/start-up wall clock), kLimit (memory,
//             CPU seconds, file size, reply size), kCrash (the worker died or broke the protocol).
//   cause     a short tag: exception, syntax, recursion, value, timeout, memory, cpu, file-size,
//             reply-size, crash, protocol, start.
//   message   one line naming the cause and, for limits, the limit ("call timeout of 2 s").
//   traceback Python's traceback, starting in the generated code (its file name and lines).
struct Failure {
  ErrorKind kind = ErrorKind::kNone;
  std::string cause;
  std::string message;
  std::string traceback;
};

struct Reply {
  std::optional<DecodedValue> value;  // set when the request succeeded (a view of the reply's bytes)
  Failure failure;                    // set otherwise
  std::string output;                 // what the code printed or wrote to fd 1/2 (bounded)
  double seconds = 0;                 // wall clock of the request as the host saw it, failed ones too

  bool ok() const { return value.has_value(); }
  // "TimeoutError: ..." style one-paragraph text: message, then the traceback when there is one.
  std::string describe() const;
  // ItemOutcome of the item `key` (ok with {"value", "output"} metadata, or the failure).
  ItemOutcome outcome(std::string key) const;
};

}  // namespace pcglab::sandbox
