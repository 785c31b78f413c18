# The poker track (IGE: a custom poker game built in conversation with an LLM, run on a native
# GameBase engine): the shared modules it links.
pcglab_module(poker DEPS pcglab_core pcglab_batch pcglab_sandbox pcglab_llm pcglab_store pcglab_refine pcglab_report)
# The default game script (Config, Phase, Flow with the official template's keys, in pcglab's own
# words), embedded at build time (poker/script.h: default_script()).
pcglab_embed_file(pcglab_poker src/poker/data/default_script.json kPokerDefaultScript pcglab::poker)
