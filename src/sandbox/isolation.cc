#include "sandbox/isolation.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>

#include <fmt/format.h>

#include "core/check.h"
#include "core/log.h"
#include "sandbox/worker.h"
#include "sandbox/worker_script.h"

namespace pcglab::sandbox {
namespace fs = std::filesystem;
namespace {

// System calls that untrusted Python and numpy never need. They fail with EPERM (so Python raises
// PermissionError and the traceback names the call) rather than killing the worker.
const char* const kDenied[] = {
    // Inspecting or writing other processes.
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    // File systems and namespaces: the sandbox's view of the world is fixed by bwrap.
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount",
    "fspick", "mount_setattr", "unshare", "setns", "open_by_handle_at", "name_to_handle_at",
    // Kernel keyrings, BPF, performance counters, userfaultfd: large kernel attack surface.
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd", "io_uring_setup",
    "io_uring_enter", "io_uring_register", "fanotify_init",
    // Administration of the machine.
    "kexec_load", "kexec_file_load", "reboot", "init_module", "finit_module", "delete_module", "swapon",
    "swapoff", "acct", "quotactl", "syslog", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
    "sethostname", "setdomainname", "iopl", "ioperm", "uselib", "vhangup", "lookup_dcookie", "personality",
    "nfsservctl",
    // Host memory outside RLIMIT_AS and the tmpfs sizes (see the fallocate rule below).
    "memfd_create", "memfd_secret", "shmget", "msgget"};

// The only devices in the sandbox's /dev.
const char* const kDevices[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"};

// CLONE_NEW* flags: a new namespace inside the sandbox (bwrap --disable-userns also stops it).
constexpr uint64_t kCloneNamespaces =
    CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWCGROUP;

std::string build_seccomp_program() {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  PCGLAB_CHECK(ctx != nullptr) << "seccomp_init failed";
  const auto add = [&](uint32_t action, const char* name, unsigned count, const scmp_arg_cmp* args) {
    const int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) return;  // unknown to this libseccomp: not on this architecture
    const int rc = seccomp_rule_add_array(ctx, action, nr, count, args);
    PCGLAB_CHECK(rc == 0) << "seccomp rule for " << name << ": " << std::strerror(-rc);
  };
  for (const char* name : kDenied) add(SCMP_ACT_ERRNO(EPERM), name, 0, nullptr);
  // Networking: only AF_UNIX sockets (the sandbox has no network anyway; this also covers a run
  // with --unsafe-no-sandbox, which has no network namespace).
  const scmp_arg_cmp not_unix = SCMP_A0(SCMP_CMP_NE, AF_UNIX);
  add(SCMP_ACT_ERRNO(EAFNOSUPPORT), "socket", 1, &not_unix);
  add(SCMP_ACT_ERRNO(EAFNOSUPPORT), "socketpair", 1, &not_unix);
  // Typing into the terminal of the session that started pcglab.
  // The kernel reads ioctl's request as 32 bits: compare only those, or a request with any of the
  // upper 32 bits set would pass the filter and still be TIOCSTI.
  const scmp_arg_cmp tiocsti = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffULL, TIOCSTI);
  const scmp_arg_cmp tioclinux = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffULL, TIOCLINUX);
  add(SCMP_ACT_ERRNO(EPERM), "ioctl", 1, &tiocsti);
  add(SCMP_ACT_ERRNO(EPERM), "ioctl", 1, &tioclinux);
  // Memory no limit counts: pages of a memfd, a SysV segment or message queue are host memory that
  // is not address space until mapped (RLIMIT_AS does not see them) and outlive any mapping. The
  // worker's own output capture is a memfd made before the filter, bounded by RLIMIT_FSIZE, which
  // fallocate(FALLOC_FL_KEEP_SIZE) would bypass (also denied: tmpfs files are bounded anyway).
  const scmp_arg_cmp keep_size = SCMP_A1(SCMP_CMP_MASKED_EQ, FALLOC_FL_KEEP_SIZE, FALLOC_FL_KEEP_SIZE);
  add(SCMP_ACT_ERRNO(EOPNOTSUPP), "fallocate", 1, &keep_size);
  // New namespaces through clone(); clone3's flags are in memory a filter cannot read, so it fails
  // with ENOSYS and glibc falls back to clone().
  const scmp_arg_cmp new_ns = SCMP_A0(SCMP_CMP_MASKED_EQ, kCloneNamespaces, 0);
  (void)new_ns;
  for (uint64_t flag = 1; flag != 0; flag <<= 1) {
    if ((kCloneNamespaces & flag) == 0) continue;
    const scmp_arg_cmp has_flag = SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag);
    add(SCMP_ACT_ERRNO(EPERM), "clone", 1, &has_flag);
  }
  add(SCMP_ACT_ERRNO(ENOSYS), "clone3", 0, nullptr);

  FILE* tmp = tmpfile();
  PCGLAB_CHECK(tmp != nullptr) << "tmpfile for the seccomp program";
  const int rc = seccomp_export_bpf(ctx, fileno(tmp));
  seccomp_release(ctx);
  PCGLAB_CHECK(rc == 0) << "seccomp_export_bpf: " << std::strerror(-rc);
  std::string program;
  std::rewind(tmp);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, tmp)) > 0) program.append(buf, n);
  std::fclose(tmp);
  return program;
}

std::string read_link_target(const fs::path& path) {
  std::error_code ec;
  const fs::path real = fs::canonical(path, ec);
  return ec ? std::string() : real.string();
}

}  // namespace

const std::string& seccomp_program() {
  static const std::string program = build_seccomp_program();
  return program;
}

std::vector<SeccompRule> seccomp_rules() {
  std::vector<SeccompRule> rules;
  for (const char* name : kDenied) rules.push_back({name, "EPERM"});
  rules.push_back({"socket, socketpair", "EAFNOSUPPORT unless the family is AF_UNIX"});
  rules.push_back({"ioctl TIOCSTI, TIOCLINUX (the low 32 bits of the request)", "EPERM"});
  rules.push_back({"fallocate with FALLOC_FL_KEEP_SIZE", "EOPNOTSUPP"});
  rules.push_back({"clone with a CLONE_NEW* flag", "EPERM"});
  rules.push_back({"clone3", "ENOSYS (glibc falls back to clone)"});
  rules.push_back({"any call of another architecture (x32, i386)", "kills the process"});
  return rules;
}

namespace {

std::vector<std::string> sandbox_command(const WorkerConfig& config, bool zygote) {
  const std::string python = read_link_target(config.python);
  if (python.empty())
    throw SetupError(
        fmt::format("sandbox: the Python interpreter {} does not exist (install python3 and "
                    "python3-numpy: scripts/install-deps.sh)",
                    config.python));
  const std::string version = fs::path(python).filename().string();  // "python3.11"
  const fs::path stdlib = fs::path("/usr/lib") / version;
  const fs::path numpy = "/usr/lib/python3/dist-packages/numpy";
  if (!fs::is_directory(stdlib))
    throw SetupError(
        fmt::format("sandbox: the standard library of {} is not in {}", python, stdlib.string()));
  if (!fs::is_directory(numpy))
    throw SetupError(
        fmt::format("sandbox: numpy is not installed in {} (install python3-numpy)", numpy.string()));

  // `-s -P` and an environment of pcglab's (PYTHONHASHSEED only) rather than `-I`, which would
  // also ignore PYTHONHASHSEED: Python's string hash is then the same in every run, so a set's
  // iteration order, and what a crawl or a reward computes from it, does not change from run to run
  // (docs/sandbox.md, "Reproducible hashing"). The environment is empty otherwise (--clearenv), and
  // -P (Python >= 3.11) keeps the working folder off sys.path as -I does.
  std::vector<std::string> python_args = {python, "-s", "-P", "-S", "-B", "-c", worker_script()};
  if (zygote) python_args.push_back("zygote");
  if (!config.numpy) python_args.push_back("no-numpy");
  if (config.isolation == Isolation::kUnsafeNoSandbox) return python_args;

  std::vector<std::string> cmd = {
      config.bwrap,    "--unshare-user",       "--unshare-pid",     "--unshare-ipc",  "--unshare-uts",
      "--unshare-net", "--unshare-cgroup-try", "--die-with-parent", "--new-session",  "--hostname",
      "sandbox",       "--clearenv",           "--setenv",          "PYTHONHASHSEED", "0"};
  if (zygote) {
    // The zygote creates each worker's namespaces, so it keeps its capabilities inside its own user
    // namespace and maps the user as it is (a second, nested user namespace, which --uid or
    // --disable-userns would make, locks bwrap's mounts and forbids a fresh /proc). Each worker
    // is uid 65534 of its own user namespace, drops every capability and installs the seccomp
    // filter itself before any generated code runs (zygote.h).
    cmd.insert(cmd.end(), {"--cap-add", "ALL"});
  } else {
    cmd.insert(cmd.end(), {"--disable-userns", "--cap-drop", "ALL", "--uid", "65534", "--gid", "65534"});
  }
  const auto ro_bind = [&cmd](const std::string& path) { cmd.insert(cmd.end(), {"--ro-bind", path, path}); };
  ro_bind(python);
  if (fs::path(config.python).parent_path() == fs::path(python).parent_path() && config.python != python)
    cmd.insert(cmd.end(), {"--symlink", fs::path(python).filename().string(), config.python});
  ro_bind(stdlib.string());
  ro_bind(numpy.string());
  // Shared libraries (libc, libffi, OpenBLAS, ...). The loader and BLAS are found through
  // /lib64 and /etc/alternatives symlinks, and ld.so.cache saves the loader a search.
  for (const auto& entry : fs::directory_iterator("/usr/lib")) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && name.size() > 10 && name.ends_with("-linux-gnu"))
      ro_bind(entry.path().string());
  }
  if (fs::is_directory("/usr/lib64")) ro_bind("/usr/lib64");
  for (const char* etc : {"/etc/alternatives", "/etc/ld.so.cache"})
    if (fs::exists(etc)) ro_bind(etc);
  for (const auto& dir : config.ro_binds) {
    if (!fs::is_directory(dir))
      throw SetupError(fmt::format("sandbox: the folder {} to bind read-only does not exist", dir));
    ro_bind(dir);
  }
  const auto bytes = [](int mb) { return std::to_string(static_cast<uint64_t>(mb) << 20); };
  cmd.insert(cmd.end(),
             {"--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin",
              "/bin", "--proc", "/proc", "--size", bytes(config.limits.tmp_mb), "--tmpfs", "/tmp"});
  // A /dev of its own holding only the five harmless devices (no tty, pts or ptmx), read-only; its
  // /dev/shm is a tmpfs of shm_mb per worker. A zygote's workers each mount their own /dev/shm on
  // the zygote's empty folder (zygote.h).
  cmd.insert(cmd.end(), {"--size", "65536", "--tmpfs", "/dev"});
  for (const char* device : kDevices) cmd.insert(cmd.end(), {"--dev-bind", device, device});
  if (zygote)
    cmd.insert(cmd.end(), {"--dir", "/dev/shm"});
  else
    cmd.insert(cmd.end(), {"--size", bytes(config.limits.shm_mb), "--tmpfs", "/dev/shm"});
  cmd.insert(cmd.end(), {"--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/tmp"});
  if (!zygote) cmd.insert(cmd.end(), {"--seccomp", "5"});
  cmd.insert(cmd.end(), python_args.begin(), python_args.end());
  return cmd;
}

}  // namespace

std::vector<std::string> worker_command(const WorkerConfig& config) {
  return sandbox_command(config, false);
}

std::vector<std::string> zygote_command(const WorkerConfig& config) {
  return sandbox_command(config, true);
}

OrderedJson isolation_settings(Isolation isolation) {
  OrderedJson j = OrderedJson::object();
  j["isolation"] = isolation_name(isolation);
  return j;
}

namespace {

// Generated code that reports from inside the sandbox what it can see.
constexpr const char* kProbe = R"PY(
import os, socket, resource
def probe():
    facts = {}
    facts['pid'] = os.getpid()
    facts['uid'] = os.getuid()
    facts['hostname'] = os.uname().nodename
    facts['env'] = sorted(os.environ)
    try:
        facts['net'] = sorted(l.split(':')[0].strip() for l in open('/proc/net/dev').read().splitlines()[2:])
    except OSError as e:
        facts['net'] = [str(e)]
    status = dict(l.split(':\t', 1) for l in open('/proc/self/status').read().splitlines() if ':\t' in l)
    facts['seccomp'] = status.get('Seccomp', '?').strip()
    facts['no_new_privs'] = status.get('NoNewPrivs', '?').strip()
    facts['cap_eff'] = status.get('CapEff', '?').strip()
    try:
        socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        facts['inet'] = 'allowed'
    except OSError as e:
        facts['inet'] = 'denied: ' + e.strerror
    facts['visible'] = [p for p in ('/etc/shadow', '/etc/passwd', '/root', '/home', '/work') if os.path.exists(p)]
    try:
        open('/usr/pcglab-probe', 'w')
        facts['root_writable'] = True
    except OSError:
        facts['root_writable'] = False
    st = os.statvfs('/tmp')
    facts['tmp_mb'] = st.f_blocks * st.f_frsize // (1 << 20)
    facts['dev'] = sorted(os.listdir('/dev'))
    try:
        open('/dev/pcglab-probe', 'w')
        facts['dev_writable'] = True
    except OSError:
        facts['dev_writable'] = False
    st = os.statvfs('/dev/shm')
    facts['shm_mb'] = st.f_blocks * st.f_frsize // (1 << 20)
    facts['shm_files'] = len(os.listdir('/dev/shm'))
    try:
        os.close(os.memfd_create('probe'))
        facts['memfd'] = 'allowed'
    except OSError as e:
        facts['memfd'] = 'denied: ' + e.strerror
    facts['nproc'] = resource.getrlimit(resource.RLIMIT_NPROC)[0]
    facts['as_mb'] = resource.getrlimit(resource.RLIMIT_AS)[0] // (1 << 20)
    facts['fds'] = [fd for fd in sorted(int(f) for f in os.listdir('/proc/self/fd')) if not pid_counter(fd)]
    return facts
def pid_counter(fd):
    # The worker's own: its PID namespace's ns_last_pid, read after each request (docs/sandbox.md).
    try:
        return os.readlink('/proc/self/fd/%d' % fd) == '/proc/sys/kernel/ns_last_pid'
    except OSError:
        return False  # the listing's own, closed by now
)PY";

bool kernel_user_namespaces(std::string* detail) {
  // clone(CLONE_NEWUSER), not fork + unshare: unshare(CLONE_NEWUSER) fails in a multi-threaded
  // process, and a forked child is not always single-threaded (ThreadSanitizer restarts its
  // background thread there), while bwrap, exec'd, always is. The raw syscall with no new stack
  // is a fork into a new user namespace; the child only exits.
  const pid_t pid =
      static_cast<pid_t>(syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, nullptr, nullptr, nullptr, 0));
  if (pid == 0) _exit(0);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) {
    *detail = fmt::format(
        "clone(CLONE_NEWUSER) fails: {} (kernel.unprivileged_userns_clone=0, user.max_user_namespaces=0, "
        "or a container without them)",
        std::strerror(errno));
    return false;
  }
  const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  *detail = ok ? "clone(CLONE_NEWUSER) works"
               : "clone(CLONE_NEWUSER) fails (kernel.unprivileged_userns_clone=0, "
                 "user.max_user_namespaces=0, or a container without them)";
  return ok;
}

template <class T>
T fact(const Dict& facts, const char* key, T fallback) {
  for (const auto& [k, v] : facts)
    if (k == key && v.template is<T>()) return v.template as<T>();
  return fallback;
}

std::string join_strings(const List& list) {
  std::string out;
  for (const auto& v : list) {
    if (!out.empty()) out += ", ";
    out += v.is<std::string>() ? v.as<std::string>() : std::to_string(v.is<int64_t>() ? v.as<int64_t>() : 0);
  }
  return out.empty() ? "none" : out;
}

}  // namespace

IsolationReport check_isolation(const WorkerConfig& config_in) {
  IsolationReport report;
  auto& checks = report.checks;
  std::string detail;
  checks.push_back({"kernel user namespaces", kernel_user_namespaces(&detail), detail});
  const bool have_bwrap = access(config_in.bwrap.c_str(), X_OK) == 0;
  checks.push_back({"bubblewrap", have_bwrap,
                    have_bwrap ? config_in.bwrap : config_in.bwrap + " not found (install bubblewrap)"});
  try {
    seccomp_program();
    checks.push_back({"seccomp filter (libseccomp)", true,
                      fmt::format("{} BPF instructions", seccomp_program().size() / 8)});
  } catch (const std::exception& e) {
    checks.push_back({"seccomp filter (libseccomp)", false, e.what()});
  }

  WorkerConfig config = config_in;
  config.isolation = Isolation::kSandbox;
  config.preload.clear();
  config.limits.start_timeout_s = std::min(config.limits.start_timeout_s, 20.0);
  Reply reply;
  if (have_bwrap) {
    try {
      Worker worker(config);
      reply = worker.load("probe.py", kProbe);
      if (reply.ok()) reply = worker.call("probe");
    } catch (const SetupError& e) {
      reply.failure.message = e.what();
    } catch (const std::system_error& e) {
      reply.failure.message = e.what();
    }
  } else {
    reply.failure.message = "no bubblewrap";
  }
  checks.push_back({"sandbox worker starts", reply.ok(),
                    reply.ok() ? "python3 and numpy in bubblewrap" : reply.describe()});
  const Value probe = reply.ok() ? reply.value->to_value() : Value();  // pcglab's probe: a small dict
  if (probe.is<Dict>()) {
    const Dict& f = probe.as<Dict>();
    const int64_t pid = fact<int64_t>(f, "pid", -1);
    checks.push_back({"PID namespace", pid == 2, fmt::format("the worker is pid {} inside", pid)});
    const std::string host = fact<std::string>(f, "hostname", "?");
    checks.push_back({"UTS namespace", host == "sandbox", "hostname " + host});
    const List net = fact<List>(f, "net", {});
    checks.push_back(
        {"network namespace", net.size() == 1 && net[0] == Value("lo"), "devices: " + join_strings(net)});
    const std::string inet = fact<std::string>(f, "inet", "?");
    checks.push_back({"no IP sockets", inet.starts_with("denied"), "socket(AF_INET): " + inet});
    const std::string seccomp = fact<std::string>(f, "seccomp", "?");
    checks.push_back({"seccomp in force", seccomp == "2",
                      "Seccomp: " + seccomp + ", NoNewPrivs: " + fact<std::string>(f, "no_new_privs", "?")});
    const std::string caps = fact<std::string>(f, "cap_eff", "?");
    checks.push_back({"no capabilities", caps == "0000000000000000", "CapEff: " + caps});
    const List env = fact<List>(f, "env", {});
    checks.push_back({"empty environment", env.empty(), "variables: " + join_strings(env)});
    const List visible = fact<List>(f, "visible", {});
    checks.push_back({"host files hidden", visible.empty(), "visible: " + join_strings(visible)});
    checks.push_back({"read-only root", !fact<bool>(f, "root_writable", true), "/usr not writable"});
    checks.push_back({"private /tmp", fact<int64_t>(f, "tmp_mb", 0) == config.limits.tmp_mb,
                      fmt::format("tmpfs of {} MB", fact<int64_t>(f, "tmp_mb", 0))});
    const List dev = fact<List>(f, "dev", {});
    const List expected_dev{Value("full"), Value("null"),    Value("random"),
                            Value("shm"),  Value("urandom"), Value("zero")};
    const bool dev_writable = fact<bool>(f, "dev_writable", true);
    checks.push_back(
        {"minimal /dev", dev == expected_dev && !dev_writable,
         fmt::format("/dev: {} ({})", join_strings(dev), dev_writable ? "writable" : "read-only")});
    const int64_t shm_mb = fact<int64_t>(f, "shm_mb", 0);
    const int64_t shm_files = fact<int64_t>(f, "shm_files", -1);
    checks.push_back({"private /dev/shm", shm_mb == config.limits.shm_mb && shm_files == 0,
                      fmt::format("tmpfs of {} MB, {} files", shm_mb, shm_files)});
    const std::string memfd = fact<std::string>(f, "memfd", "?");
    checks.push_back({"no memfd", memfd.starts_with("denied"), "memfd_create: " + memfd});
    checks.push_back({"process limit", fact<int64_t>(f, "nproc", -1) == config.limits.processes,
                      fmt::format("RLIMIT_NPROC {}", fact<int64_t>(f, "nproc", -1))});
    checks.push_back({"memory limit", fact<int64_t>(f, "as_mb", -1) == config.limits.memory_mb,
                      fmt::format("RLIMIT_AS {} MB", fact<int64_t>(f, "as_mb", -1))});
    const List fds = fact<List>(f, "fds", {});
    checks.push_back(
        {"no inherited descriptors", fds.size() <= 7,
         "open fds: " + join_strings(fds) +
             " (0-2 stdio, 3-4 protocol, the worker's error pipe, one for the listing; the worker's pid "
             "counter not counted)"});
  }
  report.sandbox_works = true;
  for (const auto& c : checks) {
    if (!c.ok && report.sandbox_works) {
      report.sandbox_works = false;
      report.problem = c.feature + ": " + c.detail;
    }
  }
  return report;
}

Isolation require_isolation(bool allow_unsafe, const WorkerConfig& config) {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  const IsolationReport report = check_isolation(config);
  if (report.sandbox_works) return Isolation::kSandbox;
  if (!allow_unsafe)
    throw SetupError(fmt::format(
        "the sandbox for generated code does not work on this machine ({}); pcglab refuses to run untrusted "
        "code without it. Run `pcglab sandbox check` for details, or pass --unsafe-no-sandbox to run it "
        "unisolated (only on a machine you can afford to lose)",
        report.problem));
  std::fprintf(
      stderr,
      "\n*** WARNING: --unsafe-no-sandbox: generated code runs WITHOUT namespaces (%s). It can read and "
      "write your files and see your processes (rlimits, the empty environment and the seccomp filter, "
      "which keeps the network closed, still apply). Recorded in the run's settings. ***\n\n",
      report.problem.c_str());
  log_warn("sandbox: running generated code without isolation (--unsafe-no-sandbox)");
  return Isolation::kUnsafeNoSandbox;
}

}  // namespace pcglab::sandbox
