// The hostile suite, fast part: programs that try to escape, read secrets, or break the worker,
// each run through the pool. Every test asserts that the host survives (the test process goes on),
// that the item's error names the cause, that nothing outside the sandbox changed, and that the
// next item on the pool succeeds. The programs that need a time limit are in
// hostile_integration_test.cc.
#include <chrono>
#include <thread>

#include "hostile_testing.h"

namespace pcglab::sandbox::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST_F(HostileTest, WritesToTheProjectFolder) {
  expect_contained("def main():\n    open('@SRC@/pcglab-hostile-was-here', 'w').write('x')\n",
                   ErrorKind::kBadInput, "No such file or directory");
}

TEST_F(HostileTest, WritesToHome) {
  expect_contained("def main():\n    open('@REALHOME@/pcglab-hostile-was-here', 'w').write('x')\n",
                   ErrorKind::kBadInput, "FileNotFoundError");
}

TEST_F(HostileTest, WritesIntoTheCanaryFolder) {
  expect_contained("def main():\n    open('@CANARY@/canary.txt', 'w').write('pwned')\n", ErrorKind::kBadInput,
                   "FileNotFoundError");
}

TEST_F(HostileTest, WritesToTheReadOnlyRoot) {
  expect_contained("def main():\n    open('/usr/pcglab-hostile-was-here', 'w')\n", ErrorKind::kBadInput,
                   "read-only");
}

TEST_F(HostileTest, ReadsSshKey) {
  expect_contained("def main():\n    return open('@HOME@/.ssh/id_rsa').read()\n", ErrorKind::kBadInput,
                   "FileNotFoundError");
  expect_contained("import os\ndef main():\n    return open(os.path.expanduser('~/.ssh/id_rsa')).read()\n",
                   ErrorKind::kBadInput, "Error");
}

TEST_F(HostileTest, ReadsEtcShadow) {
  expect_contained("def main():\n    return open('/etc/shadow').read()\n", ErrorKind::kBadInput,
                   "No such file or directory: '/etc/shadow'");
}

TEST_F(HostileTest, ReadsTheHostEnvironment) {
  const Reply r = run(R"PY(
import os
def main():
    seen = dict(os.environ)
    for p in ('/proc/self/environ', '/proc/1/environ', '/proc/2/environ'):
        try:
            seen[p] = open(p, 'rb').read().decode('latin-1')
        except OSError as e:
            seen[p] = str(e)
    return seen
)PY");
  ASSERT_TRUE(r.ok()) << r.describe();
  const std::string seen = to_json(*r.value).dump();
  expect_no_secret(seen);
  EXPECT_THAT(seen, Not(HasSubstr("OPENAI_API_KEY")));
  EXPECT_THAT(seen, Not(HasSubstr("HOME=")));
  expect_host_unchanged();
  expect_next_item_works();
}

TEST_F(HostileTest, ConnectsToALocalListener) {
  expect_contained(
      "import socket\ndef main():\n    socket.create_connection(('127.0.0.1', @PORT@), timeout=1)\n",
      ErrorKind::kBadInput, "no network");
}

TEST_F(HostileTest, ConnectsWithARawSyscall) {
  // Even with the filter out of the way, the sandbox's network namespace has no route to the host.
  expect_contained(R"PY(
import ctypes, socket
def main():
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.socket(socket.AF_INET6, socket.SOCK_STREAM, 0)
    if fd < 0:
        raise OSError(ctypes.get_errno(), 'socket(AF_INET6) failed')
)PY",
                   ErrorKind::kBadInput, "socket(AF_INET6) failed");
}

TEST_F(HostileTest, ReachesAnAbstractUnixSocketOfTheHost) {
  const int host = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string name = "pcglab-hostile-" + std::to_string(getpid());
  std::memcpy(addr.sun_path + 1, name.data(), name.size());
  ASSERT_EQ(bind(host, reinterpret_cast<sockaddr*>(&addr), sizeof(sa_family_t) + 1 + name.size()), 0);
  ASSERT_EQ(listen(host, 4), 0);
  expect_contained(
      "import socket\ndef main():\n    s = socket.socket(socket.AF_UNIX)\n    s.connect('\\0" + name + "')\n",
      ErrorKind::kBadInput, "ConnectionRefusedError");
  EXPECT_LT(accept(host, nullptr, nullptr), 0);
  close(host);
}

TEST_F(HostileTest, KillsItsParent) {
  // The parent inside is bwrap's init: signals from inside its PID namespace do not reach it.
  const Reply r = run(
      "import os, signal\ndef main():\n    os.kill(os.getppid(), signal.SIGKILL)\n    return os.getppid()\n");
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.value->as_int(), 1);
  expect_host_unchanged();
  expect_next_item_works();
}

TEST_F(HostileTest, KillsTheHostByPid) {
  expect_contained("import os, signal\ndef main():\n    os.kill(@HOSTPID@, signal.SIGKILL)\n",
                   ErrorKind::kBadInput, "ProcessLookupError");
}

TEST_F(HostileTest, KillsItsProcessGroup) {
  expect_contained("import os, signal\ndef main():\n    os.killpg(0, signal.SIGKILL)\n", ErrorKind::kCrash,
                   "SIGKILL");
}

TEST_F(HostileTest, KillsEveryProcessItCan) {
  expect_contained(
      "import os, signal\ndef main():\n    try:\n        os.kill(-1, signal.SIGKILL)\n    except OSError:\n  "
      "      pass\n    os.kill(os.getpid(), signal.SIGKILL)\n",
      ErrorKind::kCrash, "SIGKILL");
}

TEST_F(HostileTest, ExitsWithOsExit) {
  expect_contained("import os\ndef main():\n    os._exit(3)\n", ErrorKind::kCrash, "exited with status 3");
}

TEST_F(HostileTest, CallsSysExit) {
  expect_contained("import sys\ndef main():\n    sys.exit(4)\n", ErrorKind::kBadInput, "sys.exit(4)");
}

TEST_F(HostileTest, SegfaultsThroughCtypes) {
  expect_contained("import ctypes\ndef main():\n    ctypes.string_at(0)\n", ErrorKind::kCrash, "SIGSEGV");
}

TEST_F(HostileTest, RecursesDeeply) {
  expect_contained("def f(n):\n    return f(n + 1)\ndef main():\n    return f(0)\n", ErrorKind::kBadInput,
                   "RecursionError");
}

TEST_F(HostileTest, OverflowsTheCStack) {
  expect_contained(
      "import sys\nsys.setrecursionlimit(10**8)\ndef f(n):\n    return list(map(f, [n + 1]))\ndef main():\n  "
      "  return f(0)\n",
      ErrorKind::kCrash, "SIGSEGV");
}

TEST_F(HostileTest, FloodsStdout) {
  const Reply r =
      run("import sys\ndef main():\n    for i in range(50000):\n        print('flood', i)\n    "
          "sys.stderr.write('e' * 10**6)\n    return 7\n");
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.value->as_int(), 7);
  EXPECT_LE(r.output.size(), 16u * 1024 + 200);
  EXPECT_THAT(r.output, HasSubstr("output truncated"));
  expect_host_unchanged();
  expect_next_item_works();
}

TEST_F(HostileTest, FloodsFdOne) {
  expect_contained("import os\ndef main():\n    while True:\n        os.write(1, b'x' * 65536)\n",
                   ErrorKind::kBadInput, "file size limit");
}

TEST_F(HostileTest, WritesGarbageToTheProtocol) {
  expect_contained("import os\ndef main():\n    os.write(4, b'garbage' * 1000)\n    return 1\n",
                   ErrorKind::kCrash, "protocol");
}

TEST_F(HostileTest, ForgesAHugeReplyHeader) {
  expect_contained(R"PY(
import os, struct
def main():
    os.write(4, struct.pack('<IBxxxQ', 0x57474350, 0, 1 << 40))
    return 1
)PY",
                   ErrorKind::kLimit, "reply limit");
}

TEST_F(HostileTest, ClosesTheProtocolChannel) {
  expect_contained("import os, time\ndef main():\n    os.close(3)\n    os.close(4)\n    time.sleep(30)\n",
                   ErrorKind::kCrash, "closed the protocol channel");
}

TEST_F(HostileTest, WritesToTheProtocolRightAfterItsReply) {
  // Bytes that follow a reply in the same write reach pcglab in the read that takes the reply: the
  // next request still finds them (the worker is replaced), as it finds bytes written later.
  Worker worker(small_config());
  ASSERT_TRUE(worker
                  .load("stray.py", R"PY(
import __main__
reply = __main__.write_all
def main():
    __main__.write_all = lambda data: reply(bytes(data) + b'stray bytes')
    return 1
def ok():
    return 2
)PY")
                  .ok());
  const Reply first = worker.call("main");
  ASSERT_TRUE(first.ok()) << first.describe();
  EXPECT_EQ(first.value->as_int(), 1);
  const Reply r = worker.call("ok");
  ASSERT_FALSE(r.ok()) << "the stray bytes went unnoticed";
  EXPECT_EQ(r.failure.kind, ErrorKind::kCrash);
  EXPECT_THAT(r.describe(), HasSubstr("after its last reply"));
  const Reply again = worker.call("ok");  // a fresh worker, the module loaded again
  ASSERT_TRUE(again.ok()) << again.describe();
  EXPECT_EQ(again.value->as_int(), 2);
  EXPECT_EQ(worker.starts(), 2);
}

TEST_F(HostileTest, WritesToTheProtocolAfterReturning) {
  Worker worker(small_config());
  ASSERT_TRUE(worker
                  .load("late.py", fill(R"PY(
import os, threading, time
def late():
    time.sleep(0.3)
    os.write(4, b'late garbage')
def main():
    threading.Thread(target=late).start()
    return 1
def ok():
    return 2
)PY"))
                  .ok());
  ASSERT_TRUE(worker.call("main").ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const Reply r = worker.call("ok");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.failure.kind, ErrorKind::kCrash);
  EXPECT_EQ(r.failure.cause, "protocol");
  // Normally seen before the request is sent; on a very loaded machine the late write may land
  // after it, and then it is read as a malformed reply.
  EXPECT_THAT(r.describe(),
              ::testing::AnyOf(HasSubstr("after its last reply"), HasSubstr("malformed reply")));
  const Reply again = worker.call("ok");  // a fresh worker, the module loaded again
  ASSERT_TRUE(again.ok()) << again.describe();
  EXPECT_EQ(again.value->as_int(), 2);
  expect_next_item_works();
}

TEST_F(HostileTest, ReturnsATwoGigabyteValue) {
  expect_contained("import numpy as np\ndef main():\n    return np.zeros(2 * 1024**3, dtype=np.int8)\n",
                   ErrorKind::kLimit, "memory limit of 256 MB");
}

TEST_F(HostileTest, ReturnsMoreThanTheReplyLimit) {
  expect_contained("def main():\n    return ['x' * (1 << 20)] * 20\n", ErrorKind::kLimit, "exceeds");
}

TEST_F(HostileTest, ReturnsAnObjectThatCannotCross) {
  expect_contained("def main():\n    return main\n", ErrorKind::kBadInput, "cannot be returned");
}

TEST_F(HostileTest, LeavesASubprocessRunning) {
  Worker worker(small_config());
  ASSERT_TRUE(worker
                  .load("spawn.py", R"PY(
import os, subprocess, time
def main():
    subprocess.Popen(['/usr/bin/python3', '-c', 'import time; time.sleep(60)'])
    if os.fork() == 0:
        os.setsid()
        time.sleep(60)
        os._exit(0)
    return 1
def processes():
    return sorted(int(p) for p in os.listdir('/proc') if p.isdigit())
)PY")
                  .ok());
  const Reply r = worker.call("main");
  ASSERT_TRUE(r.ok()) << r.describe();
  const Reply ps = worker.call("processes");
  ASSERT_TRUE(ps.ok()) << ps.describe();
  // Left: bwrap's init (1) and the worker (2); both children were killed when the call returned.
  EXPECT_EQ(to_json(*ps.value).dump(), "[1,2]");
  expect_next_item_works();
}

TEST_F(HostileTest, ForksAndReturnsFromTheCall) {
  // Both processes return from main() into the worker's loop, the child first (the worker waits
  // for it to end): the child leaves the loop without replying or sweeping the worker away, and
  // only the worker replies.
  Worker worker(small_config());
  ASSERT_TRUE(worker
                  .load("fork.py", R"PY(
import os
def main():
    child = os.fork()
    if child != 0:
        os.waitpid(child, 0)
    return 1
def processes():
    return sorted(int(p) for p in os.listdir('/proc') if p.isdigit())
)PY")
                  .ok());
  for (int k = 0; k < 3; ++k) {
    const Reply r = worker.call("main");
    ASSERT_TRUE(r.ok()) << r.describe();
    EXPECT_EQ(r.value->as_int(), 1);
    const Reply ps = worker.call("processes");
    ASSERT_TRUE(ps.ok()) << ps.describe();
    EXPECT_EQ(to_json(*ps.value).dump(), "[1,2]");
  }
  EXPECT_EQ(worker.starts(), 1);
  expect_next_item_works();
}

TEST_F(HostileTest, TheSweepIsSkippedOnlyWhileTheNamespacesPidCounterStands) {
  // The worker reads its PID namespace's counter (ns_last_pid) in the sandbox, forked by the zygote
  // or started by its own bwrap, so a call that started no process skips the kill(-1) sweep; the
  // counter moves with every process or thread the code starts (worker.py, pids_allocated).
  const char* source = R"PY(
import __main__, os, threading
def state():
    # Two readings in a row: the counter stands (some pair falls within the wrap bound, however
    # loaded the machine).
    __main__.pids_allocated()
    standing = any(not __main__.pids_allocated() for _ in range(100))
    return [__main__.pid_counter >= 0, __main__.pid_counter_wrap_ns > 0, standing]
def start_thread():
    t = threading.Thread(target=lambda: None); t.start(); t.join()
    return __main__.pids_allocated()
def start_process():
    if os.fork() == 0:
        os._exit(0)
    os.wait()
    return __main__.pids_allocated()
)PY";
  for (const bool zygote : {true, false}) {
    WorkerConfig config = small_config();
    config.zygote = zygote;
    Worker worker(config);
    ASSERT_TRUE(worker.load("counter.py", source).ok());
    const Reply r = worker.call("state");
    ASSERT_TRUE(r.ok()) << r.describe();
    EXPECT_EQ(to_json(*r.value).dump(), "[true,true,true]") << "zygote " << zygote;
    for (const char* f : {"start_thread", "start_process"}) {
      const Reply moved = worker.call(f);
      ASSERT_TRUE(moved.ok()) << moved.describe();
      EXPECT_TRUE(moved.value->as_bool()) << f << ", zygote " << zygote;
    }
  }
}

TEST_F(HostileTest, ReadsTheHostProc) {
  expect_contained("def main():\n    return open('/proc/@HOSTPID@/environ').read()\n", ErrorKind::kBadInput,
                   "No such file or directory");
  const Reply r =
      run("import os\ndef main():\n    return sorted(int(p) for p in os.listdir('/proc') if p.isdigit())\n");
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(to_json(*r.value).dump(), "[1,2]");
}

TEST_F(HostileTest, Ptraces) {
  // Its own child, which the kernel lets the same user attach to (the namespace's init is not
  // dumpable, so attaching to pid 1 fails with or without the filter): only the filter stops it.
  expect_contained(R"PY(
import ctypes, os, time
def main():
    libc = ctypes.CDLL(None, use_errno=True)
    child = os.fork()
    if child == 0:
        time.sleep(30)
        os._exit(0)
    if libc.ptrace(16, child, 0, 0) != 0:  # PTRACE_ATTACH
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()) + ' (ptrace)')
    tracer = [l.split()[1] for l in open('/proc/%d/status' % child) if l.startswith('TracerPid')]
    return 'attached, TracerPid ' + tracer[0]
)PY",
                   ErrorKind::kBadInput, "Operation not permitted (ptrace)");
}

TEST_F(HostileTest, MountsAndUnshares) {
  expect_contained(R"PY(
import ctypes, os
def main():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()) + ' (unshare)')
)PY",
                   ErrorKind::kBadInput, "Operation not permitted (unshare)");
  // The effect, not only the errno (a worker without capabilities gets EPERM from the kernel
  // too): /tmp is the same file system after the attempt, and the worker holds no capability.
  const Reply r = run(R"PY(
import ctypes, os
def main():
    libc = ctypes.CDLL(None, use_errno=True)
    open('/tmp/mark', 'w').write('here')
    rc = libc.mount(b'none', b'/tmp', b'tmpfs', 0, None)
    err = ctypes.get_errno()
    caps = [l.split()[1] for l in open('/proc/self/status') if l.startswith(('CapEff', 'CapPrm', 'CapBnd'))]
    return [rc, os.strerror(err) if rc else '', os.path.exists('/tmp/mark')] + caps
)PY");
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(
      to_json(*r.value).dump(),
      R"([-1,"Operation not permitted",true,"0000000000000000","0000000000000000","0000000000000000"])");
  expect_host_unchanged();
  expect_next_item_works();
}

TEST_F(HostileTest, UsesKernelKeyringsAndBpf) {
  expect_contained(R"PY(
import ctypes, os
def main():
    libc = ctypes.CDLL(None, use_errno=True)
    for name, nr in (('keyctl', 250), ('bpf', 321), ('perf_event_open', 298)):
        if libc.syscall(nr, 0, 0, 0, 0, 0) != -1 or ctypes.get_errno() != 1:
            return name + ' allowed'
    raise PermissionError('all denied')
)PY",
                   ErrorKind::kBadInput, "all denied");
}

TEST_F(HostileTest, BecomesRoot) {
  // The effect: after every attempt the worker is still nobody, with no capability (the words
  // "os.setuid(0)" are in the traceback whatever happened).
  const Reply r = run(R"PY(
import os
def main():
    out = []
    for attempt in (lambda: os.setuid(0), lambda: os.setresuid(0, 0, 0), lambda: os.setgid(0)):
        try:
            attempt()
            out.append('allowed')
        except OSError as e:
            out.append(e.__class__.__name__)
    caps = [l.split()[1] for l in open('/proc/self/status') if l.startswith(('CapEff', 'CapPrm'))]
    return out + list(os.getresuid()) + list(os.getresgid()) + caps
)PY");
  ASSERT_TRUE(r.ok()) << r.describe();
  const std::string seen = to_json(*r.value).dump();
  EXPECT_THAT(seen, Not(HasSubstr("allowed")));
  EXPECT_THAT(seen,
              HasSubstr("65534,65534,65534,65534,65534,65534,\"0000000000000000\",\"0000000000000000\"]"));
  expect_host_unchanged();
  expect_next_item_works();
}

TEST_F(HostileTest, FillsTmp) {
  expect_tmpfs_capped("/tmp");
  expect_host_unchanged();
  expect_next_item_works();
}

TEST_F(HostileTest, FillsDevShm) {
  expect_tmpfs_capped("/dev/shm");
  expect_host_unchanged();
  expect_next_item_works();
}

TEST_F(HostileTest, ExhaustsMemfds) {
  // A memfd's pages are host memory outside RLIMIT_AS: memfd_create is denied, and the worker's
  // own capture memfd (fd 1) holds at most the file size limit (8 MB): no ftruncate, write or
  // fallocate (FALLOC_FL_KEEP_SIZE skips the size check) gets more.
  const Reply r = run(R"PY(
import ctypes, os
def main():
    out = {}
    try:
        held = [os.memfd_create('hoard%d' % k) for k in range(8)]
        for fd in held:
            os.ftruncate(fd, 32 << 20)
            os.write(fd, b'x' * (1 << 20))
        out['memfd_create'] = 'allowed'
    except OSError as e:
        out['memfd_create'] = e.strerror
    libc = ctypes.CDLL(None, use_errno=True)
    rc = libc.fallocate(1, 1, ctypes.c_long(0), ctypes.c_long(64 << 20))  # FALLOC_FL_KEEP_SIZE
    out['fallocate'] = os.strerror(ctypes.get_errno()) if rc else 'allowed'
    try:
        os.ftruncate(1, 64 << 20)
        out['ftruncate'] = 'allowed'
    except OSError as e:
        out['ftruncate'] = e.strerror
    try:
        while True:
            os.write(1, b'y' * (1 << 20))
    except OSError as e:
        out['write'] = e.strerror
    out['held_mb'] = os.fstat(1).st_blocks * 512 // (1 << 20)
    os.ftruncate(1, 0)
    return out
)PY");
  ASSERT_TRUE(r.ok()) << r.describe();
  const Value whole = r.value->to_value();
  const Dict& out = whole.as<Dict>();
  const auto get = [&](const char* key) {
    for (const auto& [k, v] : out)
      if (k == key) return v;
    return Value();
  };
  EXPECT_EQ(get("memfd_create"), Value("Operation not permitted")) << to_json(*r.value).dump();
  EXPECT_EQ(get("fallocate"), Value("Operation not supported")) << to_json(*r.value).dump();
  EXPECT_EQ(get("ftruncate"), Value("File too large"));
  EXPECT_EQ(get("write"), Value("File too large"));
  ASSERT_TRUE(get("held_mb").is<int64_t>());
  EXPECT_LE(get("held_mb").as<int64_t>(), 8);
  expect_host_unchanged();
  expect_next_item_works();
}

TEST_F(HostileTest, ReadsWhatAnEarlierItemLeft) {
  // Item A leaves a secret in /tmp, /dev/shm, a SysV segment and a memfd (each may be denied);
  // item B looks for it everywhere it can: nothing crosses, with a zygote or without.
  constexpr const char* kLeave = R"PY(
import ctypes, os
SECRET = b'pcglab-cross-item-secret'
def main():
    done = []
    for path in ('/tmp/left', '/dev/shm/left', '/dev/shm/sem.pcglab-hostile-left'):
        open(path, 'wb').write(SECRET)
        done.append(path)
    try:
        fd = os.memfd_create('left')
        os.write(fd, SECRET)
        done.append('memfd')
    except OSError:
        pass
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.shmget(0x5eed, 4096, 0o1666) >= 0:
        done.append('shm')
    return done
)PY";
  constexpr const char* kLook = R"PY(
import ctypes, os
def main():
    found = []
    for folder in ('/tmp', '/dev/shm'):
        found += [folder + '/' + n for n in os.listdir(folder)]
    for pid in (p for p in os.listdir('/proc') if p.isdigit()):
        try:
            fds = os.listdir('/proc/%s/fd' % pid)
        except OSError:
            continue
        for fd in fds:
            path = '/proc/%s/fd/%s' % (pid, fd)
            try:
                if not os.readlink(path).startswith(('/memfd:', '/tmp', '/dev/shm')):
                    continue
                f = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
                data = os.pread(f, 1 << 16, 0)
                os.close(f)
            except OSError:
                continue
            if b'pcglab-cross-item-secret' in data:
                found.append('fd %s/%s' % (pid, fd))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.shmget(0x5eed, 0, 0) >= 0:
        found.append('shm')
    return found
)PY";
  WorkerConfig direct = small_config();
  direct.zygote = false;
  for (const WorkerConfig& config : {small_config(), direct}) {
    WorkerPool pool(PoolConfig{config, 1, false});
    const Reply left = pool.run("leave.py", kLeave, "main");
    ASSERT_TRUE(left.ok()) << left.describe();
    EXPECT_EQ(to_json(*left.value).dump(),
              R"(["/tmp/left","/dev/shm/left","/dev/shm/sem.pcglab-hostile-left"])");
    const Reply look = pool.run("look.py", kLook, "main");
    ASSERT_TRUE(look.ok()) << look.describe();
    EXPECT_EQ(to_json(*look.value).dump(), "[]") << "zygote " << config.zygote;
  }
  expect_host_unchanged();
}

TEST_F(HostileTest, InjectsTerminalInputWithTheHighBitsSet) {
  // The kernel reads ioctl's request as 32 bits, so 0xffffffff00005412 is TIOCSTI: the filter must
  // deny it as it denies 0x5412 (on /dev/null the kernel itself would say ENOTTY).
  const Reply r = run(R"PY(
import ctypes
def main():
    libc = ctypes.CDLL(None, use_errno=True)
    out = []
    for request in (0x5412, 0xffffffff00005412, 0x8000000000005412, 0x541c, 0xffffffff0000541c):
        c = ctypes.c_char(b'x')
        rc = libc.syscall(16, 0, ctypes.c_ulong(request), ctypes.byref(c))  # SYS_ioctl on fd 0
        out.append(ctypes.get_errno() if rc != 0 else 0)
    return out
)PY");
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(to_json(*r.value).dump(), "[1,1,1,1,1]");  // EPERM from the filter, each time
  expect_host_unchanged();
  expect_next_item_works();
}

TEST_F(HostileTest, HasANonUtf8FileName) {
  const Reply ok = pool_->run(std::string("caf\xe9.py"), "def main():\n    return 1 / 0\n", "main");
  ASSERT_FALSE(ok.ok());
  EXPECT_EQ(ok.failure.kind, ErrorKind::kBadInput) << ok.describe();
  EXPECT_THAT(ok.describe(), HasSubstr("ZeroDivisionError"));
  EXPECT_THAT(ok.describe(), HasSubstr("caf\xef\xbf\xbd.py\", line 2"));  // U+FFFD
  const Reply bad_source = pool_->run("latin1.py", "s = 'caf\xe9'\ndef main():\n    return s\n", "main");
  ASSERT_FALSE(bad_source.ok());
  EXPECT_EQ(bad_source.failure.kind, ErrorKind::kBadInput) << bad_source.describe();
  EXPECT_EQ(bad_source.failure.cause, "syntax");
  EXPECT_THAT(bad_source.describe(), HasSubstr("not valid UTF-8"));
  expect_host_unchanged();
  expect_next_item_works();
}

TEST_F(HostileTest, HasASyntaxError) {
  const Reply r = run("def main():\n    x = 1\n    return x +\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.failure.kind, ErrorKind::kBadInput);
  EXPECT_EQ(r.failure.cause, "syntax");
  EXPECT_THAT(r.describe(), HasSubstr("hostile.py\", line 3"));
  expect_next_item_works();
}

TEST_F(HostileTest, ImportsAModuleThatIsNotThere) {
  const Reply r = run("import os\n\nimport requests\ndef main():\n    pass\n");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.describe(), HasSubstr("ModuleNotFoundError: No module named 'requests'"));
  EXPECT_THAT(r.describe(), HasSubstr("hostile.py\", line 3"));
  expect_next_item_works();
}

}  // namespace
}  // namespace pcglab::sandbox::testing
