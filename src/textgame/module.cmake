# The textgame track (BYTESIZED32: LLM-written text games, their validity crawl, reflection and
# judged metrics): the shared modules it links.
pcglab_module(textgame DEPS pcglab_core pcglab_batch pcglab_sandbox pcglab_llm pcglab_store pcglab_refine pcglab_report)
# The game host's Python (the module a sandbox worker loads to run a game: textgame/host.h) is a file
# of its own, linted and tested as Python (tests/textgame/area.cmake), embedded at build time.
pcglab_embed_file(pcglab_textgame src/textgame/python/host.py kTextgameHostPy pcglab::textgame)
# The judged metrics' prompt templates (textgame/judge.h), pcglab's own words; `--prompts DIR` loads
# files of the same names instead.
pcglab_embed_file(pcglab_textgame src/textgame/prompts/judge/compliance.txt kJudgeCompliancePrompt pcglab::textgame)
pcglab_embed_file(pcglab_textgame src/textgame/prompts/judge/alignment.txt kJudgeAlignmentPrompt pcglab::textgame)
pcglab_embed_file(pcglab_textgame src/textgame/prompts/judge/winnability.txt kJudgeWinnabilityPrompt pcglab::textgame)
