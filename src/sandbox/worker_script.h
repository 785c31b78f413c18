// The Python program the sandbox worker runs (worker_script.cc): pcglab's own protocol loop.
#pragma once

namespace pcglab::sandbox {

// The source of the worker's protocol loop, passed to `python3 -c`.
const char* worker_script();

}  // namespace pcglab::sandbox
