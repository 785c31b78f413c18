// The `pcglab textgame` group. Its verbs register themselves from apps/pcglab/textgame_*.cc.
#include "command.h"

PCGLAB_REGISTER_GROUP("textgame", "Text games written by an LLM (BYTESIZED32): play, validity, generation");
