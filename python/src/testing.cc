// `pcglab._pcglab._testing`: lets a test prove that a binding releases the GIL while its native
// code runs. arm() makes the next without_gil() call wait (up to 60 s) until signal() is called
// after it started waiting; signal() needs the GIL, so only another Python thread can call it,
// and only while the native call does not hold the GIL. signalled() says whether that happened.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "bindings.h"

namespace pcglab::python {
namespace {

struct Hook {
  std::atomic<bool> armed_fast{false};  // armed, read without the lock on every native call
  std::mutex mutex;
  std::condition_variable cv;
  bool armed = false;
  bool waiting = false;
  bool signalled = false;
};
Hook g_hook;

}  // namespace

void released_gil_hook() {
  if (!g_hook.armed_fast.load(std::memory_order_acquire)) return;
  std::unique_lock lock(g_hook.mutex);
  if (!g_hook.armed) return;
  g_hook.armed = false;
  g_hook.armed_fast = false;
  g_hook.waiting = true;
  g_hook.signalled = false;
  g_hook.cv.wait_for(lock, std::chrono::seconds(60), [] { return g_hook.signalled; });
  g_hook.waiting = false;
}

void bind_testing(py::module_& m) {
  auto t = m.def_submodule("_testing", "Test hooks (python/tests/test_gil.py); not for use");
  t.def("arm", [] {
    std::lock_guard lock(g_hook.mutex);
    g_hook.armed = true;
    g_hook.armed_fast = true;
    g_hook.signalled = false;
  });
  t.def("disarm", [] {
    std::lock_guard lock(g_hook.mutex);
    g_hook.armed = false;
    g_hook.armed_fast = false;
  });
  t.def("signal", [] {
    std::lock_guard lock(g_hook.mutex);
    if (!g_hook.waiting) return;
    g_hook.signalled = true;
    g_hook.cv.notify_all();
  });
  t.def("signalled", [] {
    std::lock_guard lock(g_hook.mutex);
    return g_hook.signalled;
  });
}

}  // namespace pcglab::python
