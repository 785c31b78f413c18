// The `pcglab bench` group. Its verbs register themselves from apps/pcglab/bench_*.cc.
#include "command.h"

PCGLAB_REGISTER_GROUP("bench", "Benchmarks of pcglab's engines");
