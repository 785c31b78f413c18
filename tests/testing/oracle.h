// The official npm implementations (chatgpt4pcg@1.4.1, words-count@2.0.2) as test oracles,
// installed on first use into <build>/oracle by tests/oracle/install.sh.
#pragma once

#include "core/json.h"

namespace pcglab::testing {

// Runs a batch of cases ({"kind": "extract"|"convert"|"words"|"qualify", "text", "fn"}) through
// tests/oracle/run.js in one node process; returns one {"value"} or {"error"} per case.
Json run_official_oracle(const Json& cases);

}  // namespace pcglab::testing
