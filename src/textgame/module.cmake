# The textgame track (BYTESIZED32: LLM-written text games, their validity crawl, reflection and
# judged metrics): the shared modules it links.
pcglab_module(textgame DEPS pcglab_core pcglab_batch pcglab_sandbox pcglab_llm pcglab_store pcglab_refine pcglab_report)
