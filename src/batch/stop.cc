#include "batch/stop.h"

#include <atomic>
#include <csignal>

namespace pcglab::batch {
namespace {

volatile std::sig_atomic_t g_stop = 0;

extern "C" void on_stop_signal(int) {
  g_stop = 1;
}

// Installed when the program loads: SIGUSR1's default action would kill the process mid-item.
// SA_RESTART: a read or write the signal interrupts goes on.
const bool g_installed = [] {
  struct sigaction action = {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  return sigaction(SIGUSR1, &action, nullptr) == 0;
}();

}  // namespace

bool stop_requested() {
  std::atomic_signal_fence(std::memory_order_seq_cst);
  return g_stop != 0 && g_installed;
}

void request_stop() {
  g_stop = 1;
}

void clear_stop_request() {
  g_stop = 0;
}

}  // namespace pcglab::batch
