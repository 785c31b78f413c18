// The pcglab Python module `pcglab._pcglab` (python/pcglab/ wraps it): one bind_* per area, the
// error translation and the GIL helper every native call goes through.
#pragma once

#include <pybind11/pybind11.h>

#include <utility>

#include "core/check.h"

namespace pcglab::python {

namespace py = pybind11;

// Called with the GIL released by without_gil(); the `_testing` submodule arms it so that a test
// can prove that another Python thread ran while native code did (python/tests/test_gil.py).
void released_gil_hook();

// Runs `work` (native code only: it must not touch Python objects) with the GIL released, so
// other Python threads run meanwhile. Exceptions pass through (the GIL is taken back first).
template <class F>
auto without_gil(F&& work) {
  py::gil_scoped_release release;
  released_gil_hook();
  return std::forward<F>(work)();
}

// Runs `parse` (reading one argument's value with a library parser, e.g. a year or a scenario):
// its SetupError (an unknown name) becomes ValueError with the same message, since in Python it
// is a bad argument, not bad setup.
template <class F>
auto parse_argument(F&& parse) {
  try {
    return std::forward<F>(parse)();
  } catch (const SetupError& e) {
    throw py::value_error(e.what());
  }
}

void bind_errors(py::module_& m);
void bind_testing(py::module_& m);
void bind_birds(py::module_& m);
void bind_pcgrl(py::module_& m);
void bind_runs(py::module_& m);

}  // namespace pcglab::python
