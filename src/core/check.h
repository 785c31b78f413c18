// Error kinds shared by every module, and PCGLAB_CHECK for programming errors.
//
// - An expected failure of one item is a value: see result.h.
// - Bad setup (bad flag, missing model or prompt, locked run folder) throws SetupError; the CLI
//   prints its message and exits with code 2. Library code never calls exit().
// - One input that is malformed or unreadable (a JSON, PNG, level or text file) throws InputError:
//   inside a batch item it is that item's error (item_boundary.h); outside any item the CLI prints
//   it like a SetupError (exit 2).
// - A broken invariant is a programming error: PCGLAB_CHECK(cond) << "context" throws CheckError.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace pcglab {

// Bad setup or usage: the message names the input and the fix.
class SetupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One input file or value is malformed or unreadable: the message names it and the cause. Not a
// SetupError, so run_item records it as the failure of the item that read it.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A violated invariant inside pcglab.
class CheckError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// Runs fn() for an input that is setup (a model, a prompt, a configuration read before any batch
// item): an InputError it throws becomes a SetupError with the same message.
template <class F>
auto as_setup_input(F&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const InputError& e) {
    throw SetupError(e.what());
  }
}

namespace detail {
// Collects the streamed context and throws CheckError when the full expression ends.
class CheckFailure {
 public:
  CheckFailure(const char* condition, const char* file, int line);
  CheckFailure(const CheckFailure&) = delete;
  CheckFailure& operator=(const CheckFailure&) = delete;
  [[noreturn]] ~CheckFailure() noexcept(false);

  template <class T>
  CheckFailure& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }

 private:
  std::ostringstream stream_;
};
}  // namespace detail

}  // namespace pcglab

#define PCGLAB_CHECK(cond) \
  if (cond) {              \
  } else                   \
    ::pcglab::detail::CheckFailure(#cond, __FILE__, __LINE__)
