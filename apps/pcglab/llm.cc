// The `pcglab llm` group. Its verbs register themselves from apps/pcglab/llm_*.cc.
#include "command.h"

PCGLAB_REGISTER_GROUP("llm", "Chat models over the OpenAI-compatible API");
