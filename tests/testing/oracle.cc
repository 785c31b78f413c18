#include "testing/oracle.h"

#include <stdexcept>

#include "core/files.h"
#include "testing/testing.h"

namespace pcglab::testing {

Json run_official_oracle(const Json& cases) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(PCGLAB_BINARY_DIR) / "oracle";
  const auto install = run_program({"/bin/bash", (source_dir() / "tests/oracle/install.sh").string(), dir.string()});
  if (install.exit_code != 0) throw std::runtime_error("cannot install the npm oracles: " + install.err);
  TempDir tmp;
  write_file_atomic(tmp / "cases.json", dump_json(cases));
  const auto run = run_program({"/usr/bin/env", "node", (source_dir() / "tests/oracle/run.js").string(), dir.string(),
                                (tmp / "cases.json").string(), (tmp / "out.json").string()});
  if (run.exit_code != 0) throw std::runtime_error("node oracle failed: " + run.err);
  return parse_json(read_file(tmp / "out.json"), "oracle output");
}

}  // namespace pcglab::testing
