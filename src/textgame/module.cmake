# The textgame track (BYTESIZED32: LLM-written text games, their validity crawl, reflection and
# judged metrics): the shared modules it links.
pcglab_module(textgame DEPS pcglab_core pcglab_batch pcglab_sandbox pcglab_llm pcglab_store pcglab_refine pcglab_report)
# The Python a sandbox worker runs for this track, as files of their own, linted and tested as Python
# (tests/textgame/area.cmake), embedded at build time: the game host (textgame/host.h) and the
# validity crawl (textgame/validity.h), and the game loader both start with (gameload.py).
pcglab_embed_file(pcglab_textgame src/textgame/python/gameload.py kTextgameGameLoadPy pcglab::textgame)
pcglab_embed_file(pcglab_textgame src/textgame/python/host.py kTextgameHostPy pcglab::textgame)
pcglab_embed_file(pcglab_textgame src/textgame/python/validity.py kValidityPy pcglab::textgame)
# Generation and reflection prompts (src/textgame/prompts/), embedded at build time (textgame/generation.h).
pcglab_embed_file(pcglab_textgame src/textgame/prompts/generation.txt kTextgameGenerationPrompt pcglab::textgame)
pcglab_embed_file(pcglab_textgame src/textgame/prompts/reflection.txt kTextgameReflectionPrompt pcglab::textgame)
# The judged metrics' prompt templates (textgame/judge.h), pcglab's own words; `--prompts DIR` loads
# files of the same names instead.
pcglab_embed_file(pcglab_textgame src/textgame/prompts/judge/compliance.txt kJudgeCompliancePrompt pcglab::textgame)
pcglab_embed_file(pcglab_textgame src/textgame/prompts/judge/alignment.txt kJudgeAlignmentPrompt pcglab::textgame)
pcglab_embed_file(pcglab_textgame src/textgame/prompts/judge/winnability.txt kJudgeWinnabilityPrompt pcglab::textgame)
