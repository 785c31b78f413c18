// Error kinds shared by every module, and PCGLAB_CHECK for programming errors.
//
// - An expected failure of one item is a value: see result.h.
// - Bad setup (missing file, bad flag, unreadable model) throws SetupError; the CLI prints its
//   message and exits with code 2. Library code never calls exit().
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

// A violated invariant inside pcglab.
class CheckError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

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
