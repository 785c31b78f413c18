// Result<T>: the value of one item of a batch, or the error that item met.
// Errors name the item ("team_A_3.txt") and the cause, so a batch can record them and go on.
// run_item (item_boundary.h) turns anything thrown inside an item into its ItemError.
#pragma once

#include <string>
#include <utility>
#include <variant>

#include "core/check.h"

namespace pcglab {

struct ItemError {
  std::string item;       // what failed: a file, a trial id, a request
  std::string message;    // why, in words a user can act on
  bool internal = false;  // a bug in pcglab (a broken invariant), not a fault of the input

  std::string describe() const { return item.empty() ? message : item + ": " + message; }
  bool operator==(const ItemError&) const = default;
};

template <class T>
class Result {
 public:
  Result(T value) : state_(std::move(value)) {}          // NOLINT(google-explicit-constructor)
  Result(ItemError error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  static Result failure(std::string item, std::string message) {
    return Result(ItemError{std::move(item), std::move(message)});
  }

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  const T& value() const& {
    PCGLAB_CHECK(ok()) << "value() on a failed result: " << std::get<1>(state_).describe();
    return std::get<0>(state_);
  }
  T& value() & {
    PCGLAB_CHECK(ok()) << "value() on a failed result: " << std::get<1>(state_).describe();
    return std::get<0>(state_);
  }
  T&& value() && {
    PCGLAB_CHECK(ok()) << "value() on a failed result: " << std::get<1>(state_).describe();
    return std::get<0>(std::move(state_));
  }
  const ItemError& error() const {
    PCGLAB_CHECK(!ok()) << "error() on a successful result";
    return std::get<1>(state_);
  }

 private:
  std::variant<T, ItemError> state_;
};

// For operations with no value: Status s = ok_status(); or ItemError{...}.
struct Unit {
  bool operator==(const Unit&) const = default;
};
using Status = Result<Unit>;
inline Status ok_status() {
  return Status(Unit{});
}

}  // namespace pcglab
