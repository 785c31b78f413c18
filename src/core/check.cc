#include "core/check.h"

namespace pcglab::detail {

CheckFailure::CheckFailure(const char* condition, const char* file, int line) {
  stream_ << "check failed: " << condition << " at " << file << ":" << line << ": ";
}

CheckFailure::~CheckFailure() noexcept(false) {
  throw CheckError(stream_.str());
}

}  // namespace pcglab::detail
