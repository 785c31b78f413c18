// The `pcglab birds` group. Its verbs register themselves from apps/pcglab/birds_*.cc.
#include "command.h"

PCGLAB_REGISTER_GROUP("birds",
                      "Science Birds (ChatGPT4PCG): prompts, extraction, levels, evaluation, scores");
