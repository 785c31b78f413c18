// `pcglab._pcglab`: the native half of the pcglab Python package (docs/python.md).
#include "bindings.h"

PYBIND11_MODULE(_pcglab, m) {
  namespace python = pcglab::python;
  m.doc() = "pcglab's native module; use the package pcglab (pcglab.birds, pcglab.pcgrl, pcglab.runs)";
  python::bind_errors(m);
  python::bind_testing(m);
  auto birds = m.def_submodule("birds", "ChatGPT4PCG / Science Birds evaluators");
  python::bind_birds(birds);
  auto pcgrl = m.def_submodule("pcgrl", "PCGRLLM's dungeon environment, accuracy and rewards");
  python::bind_pcgrl(pcgrl);
  auto runs = m.def_submodule("runs", "Item outcomes of batch runs");
  python::bind_runs(runs);
}
