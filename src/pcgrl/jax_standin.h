// The numpy-backed `jax` stand-in that LLM-written reward functions import (issue 16, item 3).
// PCGRLLM's rewards are JAX code traced once under jax.jit(jax.vmap(...)); pcglab runs them in the
// sandbox's /usr/bin/python3 with numpy instead. The stand-in itself is Python
// (src/pcgrl/python/jax_standin.py, embedded into the binary at configure time so that nothing has
// to be installed beside it); this header hands its source to the sandbox's preload hook.
//
// Loading: run the source as the module named `jax` (sandbox::Preload{kJaxModuleName,
// jax_standin_source()}); it registers jax.numpy, jax.lax, jax.nn, jax.scipy.signal, jax.debug,
// jax.errors and jax.tree_util itself. A batch of rewards is then one call of
// jax.pcglab_reward_batch(compute_reward, prev, curr[, prev_stats, curr_stats]) with the (B,16,16)
// int32 maps: kRewardBatchAdapter defines `pcglab_reward_batch(prev, curr)` for the loaded module.
#pragma once

#include <string_view>

namespace pcglab::pcgrl {

inline constexpr std::string_view kJaxModuleName = "jax";

// The stand-in's Python source, as src/pcgrl/python/jax_standin.py read at configure time.
std::string_view jax_standin_source();

// Python appended after the generated code: a module-level function the sandbox can call by name
// with the step's maps; returns float32 (B,) rewards or raises the reward's own error.
inline constexpr std::string_view kRewardBatchAdapter =
    "\n\ndef pcglab_reward_batch(prev, curr, prev_stats=None, curr_stats=None):\n"
    "    import jax as _pcglab_jax\n"
    "    fn = globals().get('compute_reward')\n"
    "    if not callable(fn):\n"
    "        raise NameError('the code defines no function compute_reward(prev_array, prev_stats, '\n"
    "                        'curr_array, curr_stats)')\n"
    "    return _pcglab_jax.pcglab_reward_batch(fn, prev, curr, prev_stats, curr_stats)\n";

}  // namespace pcglab::pcgrl
