// The `pcglab poker` group. Its verbs register themselves from apps/pcglab/poker_*.cc.
#include "command.h"

PCGLAB_REGISTER_GROUP("poker",
                      "Poker games built in conversation with an LLM (IGE): run, sessions, evaluation");
