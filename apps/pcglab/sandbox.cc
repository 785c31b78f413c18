// The `pcglab sandbox` group: trying generated Python as the tracks run it, and checking which
// isolation features work on this machine. Its verbs register themselves from sandbox_*.cc.
#include "command.h"

PCGLAB_REGISTER_GROUP("sandbox", "Isolated Python workers for generated code (bubblewrap, seccomp, rlimits)");
