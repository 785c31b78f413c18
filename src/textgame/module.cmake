# The textgame track (BYTESIZED32: LLM-written text games, their validity crawl, reflection and
# judged metrics): the shared modules it links.
pcglab_module(textgame DEPS pcglab_core pcglab_batch pcglab_sandbox pcglab_llm pcglab_store pcglab_refine pcglab_report)
# The validity crawl's Python (run in the sandbox): a .py file of its own, embedded at build time.
pcglab_embed_file(pcglab_textgame src/textgame/python/validity.py kValidityPy pcglab::textgame)
