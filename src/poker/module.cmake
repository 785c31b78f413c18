# The poker track (IGE: a custom poker game built in conversation with an LLM, run on a native
# GameBase engine): the shared modules it links.
pcglab_module(poker DEPS pcglab_core pcglab_batch pcglab_sandbox pcglab_llm pcglab_store pcglab_refine pcglab_report)
