// The Python program the sandbox worker runs: pcglab's own protocol loop and zygote,
// src/sandbox/python/worker.py, embedded at build time (worker_script.cc).
#pragma once

namespace pcglab::sandbox {

// The source of the worker's protocol loop, passed to `python3 -c`.
const char* worker_script();

}  // namespace pcglab::sandbox
