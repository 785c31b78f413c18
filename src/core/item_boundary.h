// The item boundary of a batch: run_item(item, fn) runs the work of one item and turns whatever it
// throws into that item's ItemError, so one bad input (a response, a level, an image) never stops
// the batch. Only SetupError passes through: bad setup stops the command (exit 2).
//
// - SetupError: rethrown (the command stops with its message).
// - InputError (one malformed or unreadable input): the item's error, with the message as it is.
// - CheckError (a broken invariant, a bug in pcglab): the item's error, marked `internal` and
//   worded as an internal error to report, so it is not mistaken for a fault of the input.
// - std::bad_alloc: "out of memory while processing this item".
// - any other exception: "unexpected error: <what>".
//
// Every batch pipeline wraps each item in run_item once; code inside the item returns expected
// failures as values (Result) and throws only for the unexpected.
#pragma once

#include <exception>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

#include "core/check.h"
#include "core/result.h"

namespace pcglab {

namespace detail {
template <class T>
struct IsResult : std::false_type {};
template <class T>
struct IsResult<Result<T>> : std::true_type {};

template <class R>
using ItemResultOf =
    std::conditional_t<IsResult<R>::value, R, Result<std::conditional_t<std::is_void_v<R>, Unit, R>>>;
}  // namespace detail

// The ItemError for the exception being handled (call inside a catch block). Rethrows SetupError.
ItemError item_error_from_current_exception(const std::string& item);

// Runs fn() as one item named `item`. fn returns T, Result<T> or void; run_item returns Result<T>
// (Status for void) holding fn's value or the item's error.
template <class F>
auto run_item(const std::string& item, F&& fn) -> detail::ItemResultOf<std::invoke_result_t<F&>> {
  using R = std::invoke_result_t<F&>;
  try {
    if constexpr (std::is_void_v<R>) {
      fn();
      return ok_status();
    } else {
      return fn();
    }
  } catch (...) {
    return item_error_from_current_exception(item);
  }
}

}  // namespace pcglab
