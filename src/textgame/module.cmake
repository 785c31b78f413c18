# The textgame track (BYTESIZED32: LLM-written text games, their validity crawl, reflection and
# judged metrics): the shared modules it links.
pcglab_module(textgame DEPS pcglab_core pcglab_batch pcglab_sandbox pcglab_llm pcglab_store pcglab_refine pcglab_report)
# Generation and reflection prompts (src/textgame/prompts/), embedded at build time (textgame/generation.h).
pcglab_embed_file(pcglab_textgame src/textgame/prompts/generation.txt kTextgameGenerationPrompt pcglab::textgame)
pcglab_embed_file(pcglab_textgame src/textgame/prompts/reflection.txt kTextgameReflectionPrompt pcglab::textgame)
