// pcglab's exceptions as Python exceptions, with the same messages (docs/python.md, "Errors"):
//   InputError  (one malformed input)          -> pcglab.InputError, a ValueError
//   ItemFailure (an item's failure, with kind) -> pcglab.ItemFailure, an InputError; .kind
//   SetupError  (bad setup: files, sandbox)    -> pcglab.SetupError, a RuntimeError
//   CheckError  (a broken invariant: a bug)    -> pcglab.InternalError, a RuntimeError
#include <exception>
#include <string>

#include "bindings.h"
#include "core/error_kind.h"
#include "pcgrl/llm_reward.h"

namespace pcglab::python {
namespace {

// The exception types, created once with the module (they live as long as the interpreter).
struct ErrorTypes {
  PyObject* input = nullptr;
  PyObject* item = nullptr;
  PyObject* setup = nullptr;
  PyObject* internal = nullptr;
};
ErrorTypes g_types;

PyObject* new_type(py::module_& m, const char* name, PyObject* base, const char* doc) {
  const std::string qualified = std::string("pcglab.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base, nullptr);
  if (type == nullptr) throw py::error_already_set();
  m.add_object(name, py::reinterpret_borrow<py::object>(type));
  return type;
}

// Raises `type` with `message` and the attributes of an item failure.
void raise_item(const ItemFailure& e, const std::string& message, const std::string& traceback) {
  py::object error = py::reinterpret_borrow<py::object>(g_types.item)(message);
  error.attr("kind") = error_kind_name(e.kind());
  error.attr("traceback") = traceback;
  PyErr_SetObject(g_types.item, error.ptr());
}

void translate(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const pcgrl::RewardError& e) {
    raise_item(e, e.describe(), e.traceback());
  } catch (const ItemFailure& e) {
    raise_item(e, e.what(), "");
  } catch (const InputError& e) {
    PyErr_SetString(g_types.input, e.what());
  } catch (const SetupError& e) {
    PyErr_SetString(g_types.setup, e.what());
  } catch (const CheckError& e) {
    PyErr_SetString(g_types.internal, e.what());
  }
}

}  // namespace

void bind_errors(py::module_& m) {
  g_types.input = new_type(m, "InputError", PyExc_ValueError,
                           "One malformed or unreadable input (pcglab's InputError); the message names it.");
  g_types.item = new_type(m, "ItemFailure", g_types.input,
                          "An item's failure (pcglab's ItemFailure): .kind is its error kind "
                          "('bad-input', 'timeout', 'crash', ...), .traceback the Python traceback of "
                          "sandboxed code when there is one.");
  g_types.setup = new_type(m, "SetupError", PyExc_RuntimeError,
                           "Bad setup (pcglab's SetupError: a missing file or model, no sandbox); the "
                           "message names the input and the fix.");
  g_types.internal = new_type(m, "InternalError", PyExc_RuntimeError,
                              "A broken invariant inside pcglab (a bug; please report it).");
  py::register_exception_translator(&translate);
}

}  // namespace pcglab::python
