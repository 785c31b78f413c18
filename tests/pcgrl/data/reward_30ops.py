# A dungeon reward written the way PCGRLLM's LLM writes them (pcglab's own, for the benchmark
# `pcglab bench pcgrl-reward` and the tests): delta rewards on tile counts, a distance from
# argwhere(size=), where/abs/clip, and a Python loop over the rows. 31 jnp operations, plus 4 per
# row in the loop over range(16).
import jax
import jax.numpy as jnp

EMPTY, WALL, PLAYER, BAT, SCORPION, SPIDER, KEY, DOOR = 1, 2, 3, 4, 5, 6, 7, 8


def compute_reward(prev_array, unused3, curr_array, unused4):
    reward = 0.0

    def counts(m):
        keys = jnp.sum(m == KEY)
        bats = jnp.sum(m == BAT)
        others = jnp.sum(m == SCORPION) + jnp.sum(m == SPIDER)
        walls = jnp.sum(m == WALL)
        return keys, bats, others, walls

    prev_keys, prev_bats, prev_others, prev_walls = counts(prev_array)
    keys, bats, others, walls = counts(curr_array)

    # The scenario: one key, two bats on the way, no other monsters.
    reward += (jnp.abs(prev_keys - 1) - jnp.abs(keys - 1)) * 2.0
    reward += (jnp.abs(prev_bats - 2) - jnp.abs(bats - 2)) * 1.5
    reward += (prev_others - others) * 1.0

    # Keep between 40% and 60% walls.
    def wall_penalty(w):
        return jnp.clip(jnp.abs(w - 128) - 26, 0, 100)

    reward += (wall_penalty(prev_walls) - wall_penalty(walls)) * 0.05

    # A key far from the player makes a longer path to walk.
    player = jnp.argwhere(curr_array == PLAYER, size=1, fill_value=0)[0]
    key = jnp.argwhere(curr_array == KEY, size=1, fill_value=0)[0]
    distance = jnp.sum(jnp.abs(player - key))
    reward += jnp.where(keys == 1, jnp.clip(distance, 0, 20) / 20.0, 0.0) * 0.5

    # A row of walls cuts the level in two: penalise each new one.
    blocked = 0
    for r in range(16):
        blocked += jnp.all(curr_array[r] == WALL).astype(jnp.int32) - jnp.all(prev_array[r] == WALL)
    reward -= blocked * 1.0
    return reward
