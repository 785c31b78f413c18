# The pcgrl track (PCGRLLM dungeons, PPO): the shared modules it links.
pcglab_module(pcgrl DEPS pcglab_core pcglab_batch pcglab_nn)
