// How a sandbox worker is isolated, and which of it works on this machine.
//
// The policy (docs/sandbox.md gives the reason for each rule): /usr/bin/python3 runs in bubblewrap
// with new user, PID, IPC, UTS, network and cgroup namespaces; its root is an empty read-only tmpfs
// holding only the interpreter, its standard library, numpy and the shared libraries they load;
// /tmp is a private tmpfs of bounded size; /proc is the sandbox's own, /dev a minimal one; the
// environment is empty; bwrap kills the sandbox when pcglab dies and puts it in a new session. A
// seccomp filter (libseccomp, compiled to BPF once and handed to bwrap with --seccomp) denies the
// system calls such code never needs. Rlimits are set in the child before exec (address space,
// CPU seconds, file size, open files, no core files) and, for processes, inside the sandbox's user
// namespace (RLIMIT_NPROC is never enforced for host root, so root runs the sandbox as nobody).
#pragma once

#include <string>
#include <vector>

#include "core/json.h"
#include "sandbox/config.h"

namespace pcglab::sandbox {

// The seccomp filter as a BPF program (struct sock_filter[]), built once.
const std::string& seccomp_program();

// The system calls the filter denies, with the errno they fail with, for docs and `sandbox check`.
struct SeccompRule {
  std::string syscall;
  std::string action;  // "EPERM", "ENOSYS", "EAFNOSUPPORT unless AF_UNIX", ...
};
std::vector<SeccompRule> seccomp_rules();

// The full command line of a worker: bwrap and its options, then python (kSandbox), or python
// alone (kUnsafeNoSandbox). Paths are resolved on this machine (the interpreter's real file, its
// stdlib folder, numpy, the multiarch library folder). Throws SetupError when the interpreter,
// its standard library or numpy is missing.
std::vector<std::string> worker_command(const WorkerConfig& config);
// The command of a zygote (sandbox/zygote.h) for config's interpreter: bwrap as above, but with
// its capabilities inside the sandbox and no seccomp filter of its own (each forked worker drops
// them and installs the filter), then `python3 ... zygote`.
std::vector<std::string> zygote_command(const WorkerConfig& config);

// One isolation feature as `pcglab sandbox check` reports it.
struct FeatureCheck {
  std::string feature;  // "user namespaces", "network namespace", "seccomp filter", ...
  bool ok = false;
  std::string detail;  // what was seen ("pid 2 in the sandbox", "only lo", the error)
};

struct IsolationReport {
  std::vector<FeatureCheck> checks;
  bool sandbox_works = false;  // every feature a kSandbox worker needs works
  std::string problem;         // the first failing feature, in words, when !sandbox_works
};

// Probes this machine: the kernel's user namespaces, bwrap, and then a real worker started as the
// tracks start it, whose generated probe code reports from inside what it can see (its PID, the
// network devices, the seccomp mode, the environment, the files of the host, the limits).
IsolationReport check_isolation(const WorkerConfig& config = {});

// The isolation a track uses for untrusted code: kSandbox when it works; otherwise, with
// allow_unsafe (--unsafe-no-sandbox), kUnsafeNoSandbox after a loud warning on stderr; otherwise a
// SetupError that says why and names the flag.
Isolation require_isolation(bool allow_unsafe, const WorkerConfig& config = {});

// {"isolation": "bubblewrap" | "unsafe-no-sandbox"} for a run's recorded settings.
OrderedJson isolation_settings(Isolation isolation);

}  // namespace pcglab::sandbox
