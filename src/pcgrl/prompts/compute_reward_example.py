import jax
import jax.numpy as jnp


def compute_reward(prev_array, prev_stats, curr_array, curr_stats) -> float:
    reward = 0.0
    return reward
