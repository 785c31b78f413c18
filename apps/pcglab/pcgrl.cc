// The `pcglab pcgrl` group. Its verbs register themselves from apps/pcglab/pcgrl_*.cc.
#include "command.h"

PCGLAB_REGISTER_GROUP("pcgrl", "PCGRL dungeon levels (PCGRLLM): environment, accuracy, PPO");
