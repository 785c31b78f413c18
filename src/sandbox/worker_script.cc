// The Python side of the sandbox worker is src/sandbox/python/worker.py: the protocol loop that
// /usr/bin/python3 runs inside bubblewrap (`python3 -I -S -B -c <its text>`). It is pcglab's own
// code and runs before any generated code. Its bytes are compiled into the executable at build time
// (pcglab_embed_file in cmake/pcglab_module.cmake), so the executable needs no file installed
// beside it; the wire format is described in protocol.h and must match protocol.cc.
#include "sandbox/worker_script.h"

namespace pcglab::sandbox {

extern const unsigned char kWorkerPy[];  // generated/embedded/kWorkerPy.cc

const char* worker_script() {
  return reinterpret_cast<const char*>(kWorkerPy);
}

}  // namespace pcglab::sandbox
