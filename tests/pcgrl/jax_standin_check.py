"""Checks pcglab's jax stand-in (src/pcgrl/python/jax_standin.py); run by jax_standin_test.cc.

    /usr/bin/python3 tests/pcgrl/jax_standin_check.py [--seed N] [--bench]

1. Documented semantics on seeded random 16x16 int32 maps: every jnp function against plain numpy
   applied to each map, batched (jax.vmap) and unbatched (jax.jit) alike, with JAX's dtypes;
   JAX's documented convolution examples; 500 random index expressions, read and .at[]-updated.
2. `.at[]` updates, lax.cond / switch / dynamic_slice / fori_loop / while_loop, nested vmap.
3. Every construct jit refuses raises the JAX-like error.
4. Rewards written the way LLMs write them: 18 accepted, with values checked against independent
   plain-numpy references; 13 refused with the right error.
--bench prints calls/s of a ~30-operation reward over 600 environments (not a test).
Exit status 0 when every check passes; on failure the seed is printed.
"""

import importlib
import os
import sys
import time
import traceback
import types

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
STANDIN = os.path.join(HERE, '..', '..', 'src', 'pcgrl', 'python', 'jax_standin.py')


def load_standin():
    """Loads the stand-in the way the sandbox's preload hook does: its source executed as the
    module named `jax` (a package: __path__ set)."""
    source = open(STANDIN).read()
    m = types.ModuleType('jax')
    m.__file__ = '<preload jax>'
    m.__path__ = []
    sys.modules['jax'] = m
    exec(compile(source, '<preload jax>', 'exec'), m.__dict__)
    return sys.modules['jax']  # the public module the stand-in put in its place


jax = load_standin()
import jax.numpy as jnp  # noqa: E402  (the stand-in, registered by load_standin)
from jax import lax  # noqa: E402
import jax.scipy.signal  # noqa: E402,F401

BORDER, EMPTY, WALL, PLAYER, BAT, SCORPION, SPIDER, KEY, DOOR = range(9)
FAILURES = []
CHECKS = [0]


def check(name, ok, detail=''):
    CHECKS[0] += 1
    if not ok:
        FAILURES.append('%s: %s' % (name, detail))


def random_maps(rng, n):
    """Dungeon-like 16x16 int32 maps: mostly empty and wall, a few of every other tile."""
    p = np.array([0.0, 0.5, 0.3, 0.03, 0.04, 0.04, 0.04, 0.03, 0.02])
    p[0] = 0.0
    return rng.choice(9, size=(n, 16, 16), p=p / p.sum()).astype(np.int32)


def to_np(x):
    return np.asarray(x)


# ------------------------------------------------------------------------------------------------
# 1. Semantics against numpy


def same(name, got, want, dtype=None, rtol=1e-6):
    got = to_np(got)
    want = np.asarray(want)
    if dtype is not None and got.dtype != np.dtype(dtype):
        check(name, False, 'dtype %s, expected %s' % (got.dtype, np.dtype(dtype)))
        return
    if got.shape != want.shape:
        check(name, False, 'shape %s, expected %s' % (got.shape, want.shape))
        return
    if got.dtype.kind == 'f' or want.dtype.kind == 'f':
        ok = np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=1e-6,
                         equal_nan=True)
    else:
        ok = np.array_equal(got, want)
    check(name, ok, 'got %s, expected %s' % (got.ravel()[:8], want.ravel()[:8]))


def np_unique_sized(a, size, fill=None):
    u = np.unique(a)
    fillv = u[0] if fill is None else fill
    out = np.full(size, fillv, dtype=a.dtype)
    out[:min(size, len(u))] = u[:size]
    return out


def np_argwhere_sized(a, size, fill=0):
    w = np.argwhere(a)
    out = np.full((size, a.ndim), fill, dtype=np.int32)
    out[:min(size, len(w))] = w[:size]
    return out


def np_conv2d(a, k, mode):
    """Plain loops: the textbook definition of 2-D convolution."""
    H, W = a.shape
    kh, kw = k.shape
    full = np.zeros((H + kh - 1, W + kw - 1), dtype=np.int64)
    for i in range(H):
        for j in range(W):
            for u in range(kh):
                for v in range(kw):
                    full[i + u, j + v] += a[i, j] * k[u, v]
    if mode == 'full':
        return full
    if mode == 'same':
        r0, c0 = (kh - 1) // 2, (kw - 1) // 2
        return full[r0:r0 + H, c0:c0 + W]
    return full[kh - 1:H, kw - 1:W]


K3 = np.array([[1, 1, 1], [1, 0, 1], [1, 1, 1]], dtype=np.int32)
K2 = np.array([[1, 2], [3, 4]], dtype=np.int32)

# (name, jax function of (a, b), numpy function of (a, b), expected JAX dtype or None)
SEMANTICS = [
    ('sum', lambda a, b: jnp.sum(a == KEY), lambda a, b: np.sum(a == KEY), 'int32'),
    ('sum axis', lambda a, b: jnp.sum(a, axis=0), lambda a, b: a.sum(0), 'int32'),
    ('sum axis -1 keepdims', lambda a, b: jnp.sum(a, axis=-1, keepdims=True),
     lambda a, b: a.sum(-1, keepdims=True), 'int32'),
    ('method sum', lambda a, b: (a == WALL).sum(), lambda a, b: (a == WALL).sum(), 'int32'),
    ('mean int -> float32', lambda a, b: jnp.mean(a), lambda a, b: a.mean(), 'float32'),
    ('abs', lambda a, b: jnp.abs(a - b), lambda a, b: np.abs(a - b), 'int32'),
    ('array of python ints', lambda a, b: jnp.array([1, 2, 3]), lambda a, b: np.array([1, 2, 3]),
     'int32'),
    ('array of python floats', lambda a, b: jnp.array([1.5, 2.0]), lambda a, b: np.array([1.5, 2.0]),
     'float32'),
    ('array of traced scalars', lambda a, b: jnp.array([jnp.sum(a == 4), jnp.sum(a == 5)]),
     lambda a, b: np.array([np.sum(a == 4), np.sum(a == 5)]), 'int32'),
    ('zeros', lambda a, b: jnp.zeros((3, 4)), lambda a, b: np.zeros((3, 4)), 'float32'),
    ('zeros int32', lambda a, b: jnp.zeros_like(a), lambda a, b: np.zeros_like(a), 'int32'),
    ('ones', lambda a, b: jnp.ones(5, dtype=jnp.int32), lambda a, b: np.ones(5), 'int32'),
    ('full', lambda a, b: jnp.full((2, 3), 7), lambda a, b: np.full((2, 3), 7), 'int32'),
    ('full float', lambda a, b: jnp.full((2,), 0.5), lambda a, b: np.full((2,), 0.5), 'float32'),
    ('where', lambda a, b: jnp.where(a == WALL, 1, 0), lambda a, b: np.where(a == WALL, 1, 0),
     'int32'),
    ('where float', lambda a, b: jnp.where(a > b, a, 0.5), lambda a, b: np.where(a > b, a, 0.5),
     'float32'),
    ('maximum', lambda a, b: jnp.maximum(a, b), lambda a, b: np.maximum(a, b), 'int32'),
    ('minimum scalar', lambda a, b: jnp.minimum(a, 3), lambda a, b: np.minimum(a, 3), 'int32'),
    ('arange', lambda a, b: jnp.arange(16), lambda a, b: np.arange(16), 'int32'),
    ('arange float', lambda a, b: jnp.arange(0.0, 2.0, 0.5), lambda a, b: np.arange(0, 2, 0.5),
     'float32'),
    ('logical_and', lambda a, b: jnp.logical_and(a == 1, b == 1),
     lambda a, b: np.logical_and(a == 1, b == 1), 'bool'),
    ('logical_or', lambda a, b: jnp.logical_or(a == 4, a == 5),
     lambda a, b: np.logical_or(a == 4, a == 5), 'bool'),
    ('logical_not', lambda a, b: jnp.logical_not(a == 2), lambda a, b: a != 2, 'bool'),
    ('diff', lambda a, b: jnp.diff(a), lambda a, b: np.diff(a), 'int32'),
    ('diff axis 0 n 2', lambda a, b: jnp.diff(a, n=2, axis=0), lambda a, b: np.diff(a, 2, 0),
     'int32'),
    ('diff bool', lambda a, b: jnp.diff(a == 2, axis=1),
     lambda a, b: (a == 2)[:, 1:] != (a == 2)[:, :-1], 'bool'),
    ('all', lambda a, b: jnp.all(a > 0), lambda a, b: np.all(a > 0), 'bool'),
    ('any axis', lambda a, b: jnp.any(a == KEY, axis=1), lambda a, b: np.any(a == KEY, axis=1),
     'bool'),
    ('clip', lambda a, b: jnp.clip(a, 2, 5), lambda a, b: np.clip(a, 2, 5), 'int32'),
    ('clip one side', lambda a, b: jnp.clip(a - b, None, 0), lambda a, b: np.minimum(a - b, 0),
     'int32'),
    ('kron', lambda a, b: jnp.kron(a[:4, :4], jnp.ones((2, 2), dtype=jnp.int32)),
     lambda a, b: np.kron(a[:4, :4], np.ones((2, 2), dtype=np.int32)), 'int32'),
    ('kron general', lambda a, b: jnp.kron(a[:3, :2], b[:2, :3]),
     lambda a, b: np.kron(a[:3, :2], b[:2, :3]), 'int32'),
    ('flip', lambda a, b: jnp.flip(a), lambda a, b: np.flip(a), 'int32'),
    ('flip axis 1', lambda a, b: jnp.flip(a, axis=1), lambda a, b: np.flip(a, 1), 'int32'),
    ('fliplr/flipud', lambda a, b: jnp.fliplr(a) + jnp.flipud(b),
     lambda a, b: np.fliplr(a) + np.flipud(b), 'int32'),
    ('tanh of int', lambda a, b: jnp.tanh(a - 4), lambda a, b: np.tanh((a - 4).astype(np.float32)),
     'float32'),
    ('tanh', lambda a, b: jnp.tanh(a / 4.0), lambda a, b: np.tanh(a.astype(np.float32) / np.float32(4)),
     'float32'),
    ('pad', lambda a, b: jnp.pad(a, 1), lambda a, b: np.pad(a, 1), 'int32'),
    ('pad value', lambda a, b: jnp.pad(a, ((1, 2), (0, 1)), constant_values=WALL),
     lambda a, b: np.pad(a, ((1, 2), (0, 1)), constant_values=WALL), 'int32'),
    ('pad edge', lambda a, b: jnp.pad(a, 2, mode='edge'), lambda a, b: np.pad(a, 2, mode='edge'),
     'int32'),
    ('max', lambda a, b: jnp.max(a), lambda a, b: np.max(a), 'int32'),
    ('max axis', lambda a, b: jnp.max(a * b, axis=0), lambda a, b: np.max(a * b, axis=0), 'int32'),
    ('min method', lambda a, b: (a + b).min(axis=1), lambda a, b: (a + b).min(axis=1), 'int32'),
    ('convolve 1-D', lambda a, b: jnp.convolve(a[0], jnp.array([1, 2, 1])),
     lambda a, b: np.convolve(a[0], [1, 2, 1]), 'float32'),
    ('convolve same', lambda a, b: jnp.convolve(a[3], jnp.array([1, 0, -1]), mode='same'),
     lambda a, b: np.convolve(a[3], [1, 0, -1], mode='same'), 'float32'),
    ('convolve valid', lambda a, b: jnp.convolve(a[3], b[2, :4], mode='valid'),
     lambda a, b: np.convolve(a[3], b[2, :4], mode='valid'), 'float32'),
    ('convolve2d same', lambda a, b: jax.scipy.signal.convolve2d(a == BAT, K3, mode='same'),
     lambda a, b: np_conv2d((a == BAT).astype(np.int32), K3, 'same'), 'float32'),
    ('convolve2d full', lambda a, b: jax.scipy.signal.convolve2d(a, K2),
     lambda a, b: np_conv2d(a, K2, 'full'), 'float32'),
    ('convolve2d valid', lambda a, b: jax.scipy.signal.convolve2d(a, K2, mode='valid'),
     lambda a, b: np_conv2d(a, K2, 'valid'), 'float32'),
    ('convolve2d traced kernel', lambda a, b: jax.scipy.signal.convolve2d(a, b[:3, :3], mode='same'),
     lambda a, b: np_conv2d(a, b[:3, :3], 'same'), 'float32'),
    ('convolve same, even kernel', lambda a, b: jnp.convolve(a[3], b[2, :4], mode='same'),
     lambda a, b: np.convolve(a[3], b[2, :4], mode='same'), 'float32'),
    ('convolve, longer kernel', lambda a, b: jnp.convolve(a[3, :5], b[2], mode='same'),
     lambda a, b: np.convolve(a[3, :5], b[2], mode='same'), 'float32'),
    ('correlate', lambda a, b: jnp.correlate(a[0], b[1, :3]) + jnp.correlate(a[1], b[2, :4], mode='same').sum(),
     lambda a, b: np.correlate(a[0], b[1, :3]) + np.correlate(a[1], b[2, :4], mode='same').sum(), 'float32'),
    ('correlate, longer second input', lambda a, b: jnp.correlate(a[0, :3], b[1], mode='full'),
     lambda a, b: np.correlate(a[0, :3], b[1], mode='full'), 'float32'),
    ('argwhere size', lambda a, b: jnp.argwhere(a == KEY, size=4, fill_value=-1),
     lambda a, b: np_argwhere_sized(a == KEY, 4, -1), 'int32'),
    ('argwhere size large', lambda a, b: jnp.argwhere(a == WALL, size=300),
     lambda a, b: np_argwhere_sized(a == WALL, 300, 0), 'int32'),
    ('nonzero size', lambda a, b: jnp.stack(jnp.nonzero(a == DOOR, size=3)),
     lambda a, b: np_argwhere_sized(a == DOOR, 3).T, 'int32'),
    ('unique size', lambda a, b: jnp.unique(a, size=9, fill_value=-1),
     lambda a, b: np_unique_sized(a, 9, -1), 'int32'),
    ('unique size small', lambda a, b: jnp.unique(a[:2, :2], size=6),
     lambda a, b: np_unique_sized(a[:2, :2], 6), 'int32'),
    ('unique counts', lambda a, b: jnp.unique(a, size=9, fill_value=0, return_counts=True)[1],
     lambda a, b: np.pad(np.unique(a, return_counts=True)[1], (0, 9 - len(np.unique(a)))), 'int32'),
    ('astype', lambda a, b: (a == 3).astype(jnp.float32), lambda a, b: (a == 3).astype(np.float32),
     'float32'),
    ('astype int', lambda a, b: (a / 3).astype(jnp.int32), lambda a, b: (a / 3).astype(np.int32),
     'int32'),
    ('int / int -> float32', lambda a, b: a / (b + 1), lambda a, b: a / (b + 1), 'float32'),
    ('int * python float -> float32', lambda a, b: a * 0.1, lambda a, b: a * np.float32(0.1),
     'float32'),
    ('int // and %', lambda a, b: (a - 4) // 3 + (a - 4) % 3, lambda a, b: (a - 4) // 3 + (a - 4) % 3,
     'int32'),
    ('bool + bool sum', lambda a, b: jnp.sum((a == 1) & (b == 2)),
     lambda a, b: np.sum((a == 1) & (b == 2)), 'int32'),
    ('uint8 stays weakly typed', lambda a, b: a.astype(jnp.uint8) + 3,
     lambda a, b: a.astype(np.uint8) + 3, 'uint8'),
    ('fancy indexing', lambda a, b: a[jnp.array([0, 5, 15]), jnp.array([1, 2, 3])],
     lambda a, b: a[[0, 5, 15], [1, 2, 3]], 'int32'),
    ('fancy indexing traced index', lambda a, b: a[b[0, :4], b[1, :4]],
     lambda a, b: a[b[0, :4], b[1, :4]], 'int32'),
    ('fancy indexing row', lambda a, b: a[b[0, 0]], lambda a, b: a[b[0, 0]], 'int32'),
    ('fancy indexing slice then array', lambda a, b: a[2:5, b[0, :3]],
     lambda a, b: a[2:5, b[0, :3]], 'int32'),
    ('fancy indexing array, slice, array', lambda a, b: a[b[0, :3], 1:4][:, :, None] + 0,
     lambda a, b: a[b[0, :3], 1:4][:, :, None], 'int32'),
    ('fancy indexing negative', lambda a, b: a[-b[0, :5]], lambda a, b: a[-b[0, :5]], 'int32'),
    ('fancy indexing out of bounds clamps', lambda a, b: a[b[0, :5] + 12, 3],
     lambda a, b: a[np.minimum(b[0, :5] + 12, 15), 3], 'int32'),
    ('static indexing', lambda a, b: a[1:-1, ::2], lambda a, b: a[1:-1, ::2], 'int32'),
    ('static index out of bounds clamps', lambda a, b: a[20, -30] + a[3][99],
     lambda a, b: a[15, 0] + a[3][15], 'int32'),
    ('static indexing newaxis/ellipsis', lambda a, b: a[None, ..., 3],
     lambda a, b: a[None, ..., 3], 'int32'),
    ('shape/size static', lambda a, b: jnp.zeros(a.shape[0] + a.size // 256),
     lambda a, b: np.zeros(17), 'float32'),
    ('reshape', lambda a, b: a.reshape(-1, 32)[3], lambda a, b: a.reshape(-1, 32)[3], 'int32'),
    ('ravel/argmax', lambda a, b: jnp.argmax(a.ravel() == KEY), lambda a, b: np.argmax(a.ravel() == KEY),
     'int32'),
    ('floor/ceil keep ints', lambda a, b: jnp.floor(a) + jnp.ceil(b) - jnp.trunc(a - b),
     lambda a, b: a + b - (a - b), 'int32'),
    ('floor/ceil of floats', lambda a, b: jnp.floor(a / 3) + jnp.ceil(b / 3) + jnp.trunc((a - b) / 3),
     lambda a, b: np.floor(a / np.float32(3)) + np.ceil(b / np.float32(3)) + np.trunc((a - b) / np.float32(3)), 'float32'),
    ('argmin axis', lambda a, b: jnp.argmin(a, axis=1), lambda a, b: np.argmin(a, axis=1), 'int32'),
    ('concatenate', lambda a, b: jnp.concatenate([a[0], b[0], jnp.array([9])]),
     lambda a, b: np.concatenate([a[0], b[0], [9]]), 'int32'),
    ('stack axis 1', lambda a, b: jnp.stack([a[0], b[0]], axis=1), lambda a, b: np.stack([a[0], b[0]], 1),
     'int32'),
    ('transpose/T', lambda a, b: a.T - jnp.transpose(b), lambda a, b: a.T - b.T, 'int32'),
    ('roll', lambda a, b: jnp.roll(a, 1, axis=0) - jnp.roll(a, -2, axis=1),
     lambda a, b: np.roll(a, 1, 0) - np.roll(a, -2, 1), 'int32'),
    ('cumsum', lambda a, b: jnp.cumsum(a == WALL, axis=1), lambda a, b: np.cumsum(a == WALL, axis=1),
     'int32'),
    ('count_nonzero', lambda a, b: jnp.count_nonzero(a == 5), lambda a, b: np.count_nonzero(a == 5),
     'int32'),
    ('isin', lambda a, b: jnp.isin(a, jnp.array([BAT, SCORPION, SPIDER])),
     lambda a, b: np.isin(a, [BAT, SCORPION, SPIDER]), 'bool'),
    ('sqrt/square', lambda a, b: jnp.sqrt(jnp.square(a) + 1.0),
     lambda a, b: np.sqrt(np.square(a).astype(np.float32) + np.float32(1)), 'float32'),
    ('exp/log', lambda a, b: jnp.log(jnp.exp(a / 8.0) + 1), lambda a, b: np.log(np.exp(a / np.float32(8)) + 1),
     'float32'),
    ('linalg norm', lambda a, b: jnp.linalg.norm((a - b)[0]),
     lambda a, b: np.linalg.norm((a - b)[0].astype(np.float32)), 'float32'),
    ('sort/argsort', lambda a, b: jnp.sort(a[0]) * 100 + jnp.argsort(a[1]),
     lambda a, b: np.sort(a[0]) * 100 + np.argsort(a[1], kind='stable'), 'int32'),
    ('matmul', lambda a, b: a[:4, :4] @ b[:4, :4], lambda a, b: a[:4, :4] @ b[:4, :4], 'int32'),
    ('dot vector', lambda a, b: jnp.dot(a[0], b[0]), lambda a, b: np.dot(a[0], b[0]), 'int32'),
    ('tile/repeat', lambda a, b: jnp.tile(a[0, :3], 2) + jnp.repeat(a[1, :3], 2),
     lambda a, b: np.tile(a[0, :3], 2) + np.repeat(a[1, :3], 2), 'int32'),
    ('expand/squeeze', lambda a, b: jnp.squeeze(jnp.expand_dims(a, 0), 0),
     lambda a, b: a, 'int32'),
    ('rot90', lambda a, b: jnp.rot90(a), lambda a, b: np.rot90(a), 'int32'),
    ('sign/power', lambda a, b: jnp.sign(a - 4) * jnp.power(a, 2), lambda a, b: np.sign(a - 4) * a ** 2,
     'int32'),
    ('one_hot', lambda a, b: jax.nn.one_hot(a[0], 9), lambda a, b: np.eye(9)[a[0]], 'float32'),
    ('int32 overflow wraps', lambda a, b: (a + 2147483000) * 1000,
     lambda a, b: ((a.astype(np.int64) + 2147483000) * 1000).astype(np.int32), 'int32'),
    ('comparison chain', lambda a, b: ((a >= 4) & (a <= 6)) | (b == KEY),
     lambda a, b: ((a >= 4) & (a <= 6)) | (b == KEY), 'bool'),
    ('array_equal', lambda a, b: jnp.array_equal(a, b) | (jnp.array_equal(a, a) & ~jnp.array_equal(a, a[:2])),
     lambda a, b: np.array_equal(a, b) | True, 'bool'),
    ('array_equal differs', lambda a, b: jnp.array_equal(a, jnp.where(b == 7, 0, a)),
     lambda a, b: not np.any(b == 7), 'bool'),
    ('einsum', lambda a, b: jnp.einsum('ij,jk->ik', a[:3, :4], b[:4, :2]) + jnp.einsum('ii', a[:3, :3]),
     lambda a, b: np.einsum('ij,jk->ik', a[:3, :4], b[:4, :2]) + np.trace(a[:3, :3]), 'int32'),
    ('einsum implicit output', lambda a, b: jnp.einsum('ij,ij', a, b), lambda a, b: np.sum(a * b), 'int32'),
    ('median/nanmean', lambda a, b: jnp.median(a, axis=0) + jnp.nanmean(jnp.where(b == 2, jnp.nan, b)),
     lambda a, b: np.median(a, axis=0) + np.nanmean(np.where(b == 2, np.nan, b)), 'float32'),
    ('nansum/nanmax/nanmin', lambda a, b: jnp.nansum(a) + jnp.nanmax(b) - jnp.nanmin(a, axis=1),
     lambda a, b: np.sum(a) + np.max(b) - np.min(a, axis=1), 'int32'),
    ('triu/tril', lambda a, b: jnp.triu(a) - jnp.tril(b, -1), lambda a, b: np.triu(a) - np.tril(b, -1), 'int32'),
    ('linspace traced ends', lambda a, b: jnp.linspace(0, jnp.sum(a == 2), 5) + jnp.linspace(1.0, 2.0, 4, endpoint=False).sum(),
     lambda a, b: np.linspace(0, np.sum(a == 2), 5).astype(np.float32) + np.float32(np.linspace(1.0, 2.0, 4, endpoint=False).sum()), 'float32'),
    ('average', lambda a, b: jnp.average(a, axis=0, weights=jnp.arange(16) + 1.0) + jnp.average(b),
     lambda a, b: np.average(a, axis=0, weights=np.arange(16) + 1.0) + np.average(b), 'float32'),
    ('ptp/trace/diag', lambda a, b: jnp.ptp(a, axis=1) + jnp.trace(b) + jnp.diag(a) + jnp.diag(jnp.diag(b), 1)[1:, :16].sum(0),
     lambda a, b: np.ptp(a, axis=1) + np.trace(b) + np.diag(a) + np.diag(np.diag(b), 1)[1:, :16].sum(0), 'int32'),
    ('take_along_axis', lambda a, b: jnp.take_along_axis(a, jnp.argsort(b, axis=1), axis=1),
     lambda a, b: np.take_along_axis(a, np.argsort(b, axis=1, kind='stable'), axis=1), 'int32'),
    ('numpy array operands', lambda a, b: np.arange(16) * a[0] + np.float32(2) * a[1],
     lambda a, b: np.arange(16) * a[0] + 2 * a[1], 'float32'),
    ('weak where keeps uint8', lambda a, b: a.astype(jnp.uint8) + jnp.where(a > 3, 1, 0),
     lambda a, b: a.astype(np.uint8) + np.where(a > 3, 1, 0).astype(np.uint8), 'uint8'),
    ('jnp.array(python int) is weak', lambda a, b: a.astype(jnp.uint8) * jnp.array(2) + jnp.full((16,), 1)
     - (-jnp.array(1)), lambda a, b: (a.astype(np.uint8) * 2 + 1 + 1).astype(np.uint8), 'uint8'),
    ('strong int32 promotes uint8', lambda a, b: a.astype(jnp.uint8) + jnp.zeros((), jnp.int32),
     lambda a, b: a.astype(np.int32), 'int32'),
    ('bincount length', lambda a, b: jnp.bincount(a.ravel(), length=9),
     lambda a, b: np.bincount(a.ravel(), minlength=9), 'int32'),
]


def check_semantics(rng):
    A = random_maps(rng, 24)
    B = random_maps(rng, 24)
    for name, jf, nf in [(s[0], s[1], s[2]) for s in SEMANTICS]:
        dtype = [s for s in SEMANTICS if s[0] == name][0][3]
        want = np.stack([np.asarray(nf(A[i], B[i])) for i in range(len(A))])
        try:
            got = jax.jit(jax.vmap(jf))(A, B)
            same('vmap ' + name, got, want, dtype)
            one = jax.jit(jf)(A[5], B[5])
            same('jit ' + name, one, want[5], dtype)
        except Exception:
            check(name, False, traceback.format_exc())


# ------------------------------------------------------------------------------------------------
# 2. .at[], lax, vmap


def check_documented_examples(rng):
    """The examples of JAX's own documentation for the convolutions (their values and dtypes)."""
    x = jnp.array([1, 2, 3, 2, 1])
    same('jnp.convolve doc example', jnp.convolve(x, jnp.array([4, 1, 2])), [4, 9, 16, 15, 12, 5, 2],
         'float32')
    y = jnp.array([1, 3, 2])
    sig = jax.scipy.signal
    same('signal.correlate full', sig.correlate(x, y, mode='full'), [2, 7, 13, 15, 11, 5, 1], 'float32')
    same('signal.correlate same', sig.correlate(x, y, mode='same'), [7, 13, 15, 11, 5], 'float32')
    same('signal.correlate valid', sig.correlate(x, y, mode='valid'), [13, 15, 11], 'float32')
    ones = jnp.array([1, 1, 1])
    same('signal.convolve same', sig.convolve(x, ones, mode='same'), [3, 6, 7, 6, 3], 'float32')
    a = jnp.array([[1, 2], [3, 4]])
    k = jnp.array([[2, 1, 1], [4, 3, 4], [1, 3, 2]])
    same('convolve2d full', sig.convolve2d(a, k), [[2, 5, 3, 2], [10, 22, 17, 12], [13, 30, 32, 20],
                                                   [3, 13, 18, 8]], 'float32')
    same('convolve2d same (smaller first input)', sig.convolve2d(a, k, mode='same'), [[22, 17], [30, 32]],
         'float32')
    same('convolve2d valid (swapped)', sig.convolve2d(a, k, mode='valid'), [[22, 17], [30, 32]], 'float32')
    c = jnp.array([[2, 1, 3], [1, 3, 1], [4, 1, 2]])
    d = jnp.array([[1, 3], [4, 2]])
    same('correlate2d full', sig.correlate2d(c, d), [[4, 10, 10, 12], [8, 15, 24, 7], [11, 28, 14, 9],
                                                     [12, 7, 7, 2]], 'float32')
    same('correlate2d same (even kernel)', sig.correlate2d(c, d, mode='same'),
         [[15, 24, 7], [28, 14, 9], [7, 7, 2]], 'float32')
    same('correlate2d valid', sig.correlate2d(c, d, mode='valid'), [[15, 24], [28, 14]], 'float32')
    try:
        sig.convolve2d(jnp.ones((2, 5)), jnp.ones((3, 3)), mode='valid')
        check('convolve2d valid needs one input inside the other', False, 'accepted')
    except ValueError as e:
        check('convolve2d valid needs one input inside the other',
              'One input must be smaller than the other in every dimension' in str(e), str(e))


def _random_index(rng, shape, B):
    """A random index for an array of `shape` (logical), as (stand-in index builder, per-item
    numpy index builder): ints (negative too), slices with steps, None, Ellipsis, static int
    arrays and per-environment (traced) int arrays, out-of-bound array entries included."""
    items = []
    d = 0
    used_ellipsis = False
    while d < len(shape) and rng.random() < 0.8:
        kind = rng.choice(['int', 'slice', 'none', 'static', 'traced', 'ellipsis'],
                          p=[0.2, 0.25, 0.1, 0.15, 0.2, 0.1])
        n = shape[d]
        if kind == 'int':
            items.append(('int', int(rng.integers(-n, n))))
            d += 1
        elif kind == 'slice':
            start = None if rng.random() < 0.3 else int(rng.integers(-n, n))
            stop = None if rng.random() < 0.3 else int(rng.integers(-n, n + 2))
            step = None if rng.random() < 0.5 else int(rng.choice([-2, -1, 1, 2, 3]))
            items.append(('slice', slice(start, stop, step)))
            d += 1
        elif kind == 'none':
            items.append(('none', None))
        elif kind == 'ellipsis' and not used_ellipsis:
            used_ellipsis = True
            items.append(('ellipsis', Ellipsis))
            d = len(shape)  # an ellipsis may stand for all remaining axes
        elif kind == 'static':
            shp = (int(rng.integers(1, 4)),)
            items.append(('static', rng.integers(-n, n, size=shp)))
            d += 1
        elif kind == 'traced':
            shp = (int(rng.integers(1, 4)),)
            items.append(('traced', rng.integers(-n - 3, n + 3, size=(B,) + shp)))
            d += 1
    if not items:
        items.append(('int', 0))
    arr_shapes = {it[1].shape[-1] for it in items if it[0] in ('static', 'traced')}
    if len(arr_shapes) > 1:  # make the advanced indices broadcastable
        items = [(k, v[..., :1]) if k in ('static', 'traced') else (k, v) for k, v in items]
    return items


def _np_clamped(items, b, shape):
    """The per-item numpy index with JAX's clamping of out-of-bound array indices."""
    out = []
    d = 0
    consumed = sum(1 for k, _ in items if k not in ('none', 'ellipsis'))
    for kind, v in items:
        if kind == 'ellipsis':
            d += len(shape) - consumed
            out.append(Ellipsis)
            continue
        if kind == 'none':
            out.append(None)
            continue
        n = shape[d]
        if kind in ('traced', 'static'):
            a = v[b] if kind == 'traced' else v
            a = np.where(a < 0, a + n, a)
            out.append(np.clip(a, 0, n - 1))
        else:
            out.append(v)
        d += 1
    return tuple(out)


def check_indexing_fuzz(rng):
    """Random index expressions on traced arrays against numpy on each environment's array."""
    B = 5
    for case in range(500):
        shape = tuple(int(x) for x in rng.integers(1, 6, size=rng.integers(1, 4)))
        X = rng.integers(-50, 50, size=(B,) + shape).astype(np.int32)
        items = _random_index(rng, shape, B)
        try:
            want = np.stack([X[b][_np_clamped(items, b, shape)] for b in range(B)])
        except IndexError:
            continue  # numpy refuses it too (e.g. too many indices)
        traced = [v for k, v in items if k == 'traced']

        def f(x, *tr):
            it = iter(tr)
            idx = tuple(next(it) if k == 'traced' else (jnp.array(v) if k == 'static' else v)
                        for k, v in items)
            return x[idx]
        try:
            got = jax.vmap(f)(X, *traced)
        except Exception:
            check('indexing case %d %s' % (case, items), False, traceback.format_exc())
            continue
        same('indexing case %d %s on %s' % (case, [k for k, _ in items], shape), got, want, 'int32')
        STATS['index cases'] += 1
        STATS['with traced arrays'] += bool(traced)
        # .at[].add with the index, array entries brought in bounds (in bounds, clamping and
        # dropping agree): numpy's add.at per item, duplicates accumulating
        items = _in_bounds(items, shape)
        traced = [v for k, v in items if k == 'traced']
        got2 = jax.vmap(lambda x, *tr: x.at[_rebuild(items, tr)].add(1))(X, *traced)
        want2 = X.copy()
        for b in range(B):
            np.add.at(want2[b], _np_clamped(items, b, shape), 1)
        same('.at[].add case %d %s on %s' % (case, [k for k, _ in items], shape), got2, want2, 'int32')


STATS = {'index cases': 0, 'with traced arrays': 0}


def _in_bounds(items, shape):
    out = []
    d = 0
    consumed = sum(1 for k, _ in items if k not in ('none', 'ellipsis'))
    for kind, v in items:
        if kind == 'ellipsis':
            d += len(shape) - consumed
        elif kind in ('traced', 'static'):
            n = shape[d]
            v = np.clip(v, -n, n - 1)
            d += 1
        elif kind != 'none':
            d += 1
        out.append((kind, v))
    return out


def _rebuild(items, tr):
    it = iter(tr)
    return tuple(next(it) if k == 'traced' else (jnp.array(v) if k == 'static' else v) for k, v in items)


def check_at(rng):
    A = random_maps(rng, 8)
    idx_r = rng.integers(-20, 20, size=(8, 6))
    idx_c = rng.integers(0, 16, size=(8, 6))
    vals = rng.integers(-5, 5, size=(8, 6)).astype(np.int32)

    def ref(op, a, r, c, v):
        out = a.copy()
        keep = (r >= -16) & (r < 16)  # JAX drops out-of-bound scatter indices
        r, c, v = r[keep], c[keep], v[keep]
        if op == 'set':
            for i in range(len(r)):
                out[r[i], c[i]] = v[i]
        elif op == 'add':
            np.add.at(out, (r, c), v)
        elif op == 'multiply':
            np.multiply.at(out, (r, c), v)
        elif op == 'min':
            np.minimum.at(out, (r, c), v)
        elif op == 'max':
            np.maximum.at(out, (r, c), v)
        return out

    for op in ('set', 'add', 'multiply', 'min', 'max'):
        if op == 'set':  # duplicates are unspecified in JAX: use distinct targets
            rr = np.stack([rng.permutation(16)[:6] for _ in range(8)])
        else:
            rr = idx_r
        f = lambda a, r, c, v, op=op: getattr(a.at[r, c], op)(v)
        got = jax.vmap(f)(A, rr, idx_c, vals)
        want = np.stack([ref(op, A[i], rr[i], idx_c[i], vals[i]) for i in range(8)])
        same('at[].%s' % op, got, want, 'int32')
    same('at[] static set', jax.vmap(lambda a: a.at[0, :].set(9).at[1:3, 2].add(1))(A),
         np.stack([_static_at(a) for a in A]), 'int32')
    same('at[] set casts to int32', jax.vmap(lambda a: a.at[2, 2].set(1.7))(A)[:, 2, 2],
         np.ones(8), 'int32')
    same('at[] subtract', jax.vmap(lambda a: a.at[3].subtract(1))(A)[:, 3], A[:, 3] - 1, 'int32')
    same('at[] get', jax.vmap(lambda a: a.at[jnp.array([1, 99])].get())(A), A[:, [1, 15]], 'int32')
    same('at[] traced scalar index', jax.vmap(lambda a: a.at[a[0, 0], a[0, 1]].set(-1))(A),
         np.stack([_scalar_at(a) for a in A]), 'int32')
    same('at[] float array add', jax.vmap(lambda a: jnp.zeros(9).at[a[0]].add(0.5))(A),
         np.stack([np.bincount(a[0], minlength=9) * 0.5 for a in A]), 'float32')
    same('at[] static out of bounds dropped', jax.vmap(lambda a: a.at[16, 0].set(0).at[-17].add(1))(A),
         A, 'int32')
    x = jnp.arange(5)
    y = x.at[0].set(7)
    same('at[] leaves the original unchanged', x, np.arange(5), 'int32')
    same('at[] outside any trace', y, [7, 1, 2, 3, 4], 'int32')


def _static_at(a):
    out = a.copy()
    out[0, :] = 9
    out[1:3, 2] += 1
    return out


def _scalar_at(a):
    out = a.copy()
    out[a[0, 0], a[0, 1]] = -1
    return out


def check_lax(rng):
    A = random_maps(rng, 16)

    def f(a):
        n = jnp.sum(a == KEY)
        return lax.cond(n > 2, lambda x: x * 2.0, lambda x: x - 1.0, n.astype(jnp.float32))
    want = np.array([(np.sum(a == KEY) * 2.0 if np.sum(a == KEY) > 2 else np.sum(a == KEY) - 1.0)
                     for a in A])
    same('lax.cond batched', jax.jit(jax.vmap(f))(A), want, 'float32')
    same('lax.cond unbatched', jax.jit(f)(A[0]), want[0], 'float32')
    same('lax.cond python-scalar branches', jax.vmap(
        lambda a: lax.cond(jnp.any(a == DOOR), lambda: 1.0, lambda: 0.0))(A),
        np.array([float(np.any(a == DOOR)) for a in A]), 'float32')
    same('lax.cond weak and strong float32', jax.vmap(
        lambda a: lax.cond(a[0, 0] > 3, lambda: 0.5, lambda: jnp.float32(2)))(A),
        np.where(A[:, 0, 0] > 3, 0.5, 2.0), 'float32')
    same('lax.cond int predicate', jax.vmap(lambda a: lax.cond(a[0, 0] - 1, lambda: 1, lambda: 2))(A),
         np.where(A[:, 0, 0] != 1, 1, 2), 'int32')
    same('lax.select', jax.vmap(lambda a: lax.select(a[0, 0] > 3, a[0, 1], a[1, 0]))(A),
         np.where(A[:, 0, 0] > 3, A[:, 0, 1], A[:, 1, 0]), 'int32')
    same('fori_loop promotes a weak int carry', jax.vmap(
        lambda a: lax.fori_loop(0, 3, lambda i, acc: acc + 0.5 * a[0, i], 0))(A),
        0.5 * A[:, 0, :3].sum(1), 'float32')
    same('fori_loop promotes a weak jnp.array carry', jax.vmap(
        lambda a: lax.fori_loop(0, 2, lambda i, acc: acc + 0.25, jnp.where(a[0, 0] > 3, 1, 0)))(A),
        np.where(A[:, 0, 0] > 3, 1.5, 0.5), 'float32')
    check('weak_type shown', 'weak_type=True' in repr(jnp.array(1)) and 'weak' not in repr(jnp.zeros(1)),
          repr(jnp.array(1)))
    same('fori_loop over an empty range', jax.vmap(lambda a: lax.fori_loop(5, 2, lambda i, acc: acc + i, a[0, 0]))(A),
         A[:, 0, 0], 'int32')
    same('scan', jax.vmap(lambda a: lax.scan(lambda c, x: (c + x, c * x), 0, a[0])[1])(A),
         np.stack([np.cumsum(np.concatenate([[0], a[0, :-1]])) * a[0] for a in A]), 'int32')
    same('lax.switch', jax.vmap(lambda a: lax.switch(a[0, 0], [lambda: 10, lambda: 20, lambda: 30]))(A),
         np.array([[10, 20, 30][min(max(a[0, 0], 0), 2)] for a in A]), 'int32')

    def ds(a):
        p = jnp.argwhere(a == PLAYER, size=1, fill_value=0)[0]
        return lax.dynamic_slice(a, (p[0] - 1, p[1] - 1), (3, 3))

    def ds_ref(a):
        w = np.argwhere(a == PLAYER)
        r, c = (w[0] if len(w) else (0, 0))
        r = min(max(r - 1, 0), 13)
        c = min(max(c - 1, 0), 13)
        return a[r:r + 3, c:c + 3]
    same('lax.dynamic_slice (start clamped)', jax.vmap(ds)(A), np.stack([ds_ref(a) for a in A]),
         'int32')
    same('lax.dynamic_slice static', jax.jit(lambda a: lax.dynamic_slice(a, (14, 2), (3, 2)))(A[0]),
         A[0][13:16, 2:4], 'int32')

    def dus(a):
        return lax.dynamic_update_slice(a, jnp.zeros((2, 2), jnp.int32), (a[0, 0], a[0, 1]))

    def dus_ref(a):
        out = a.copy()
        r, c = min(max(a[0, 0], 0), 14), min(max(a[0, 1], 0), 14)
        out[r:r + 2, c:c + 2] = 0
        return out
    same('lax.dynamic_update_slice', jax.vmap(dus)(A), np.stack([dus_ref(a) for a in A]), 'int32')

    def fl(a):
        return lax.fori_loop(0, 9, lambda i, acc: acc + (i * jnp.sum(a == i)), 0)
    same('lax.fori_loop', jax.vmap(fl)(A), np.array([sum(i * np.sum(a == i) for i in range(9)) for a in A]),
         'int32')

    def fl_traced(a):
        return lax.fori_loop(0, a[0, 0], lambda i, acc: acc + i, 0)
    same('lax.fori_loop traced bound', jax.vmap(fl_traced)(A),
         np.array([sum(range(a[0, 0])) for a in A]), 'int32')

    def wl(a):
        return lax.while_loop(lambda s: s[0] < a[0, 1] + 3, lambda s: (s[0] + 1, s[1] * 2), (0, 1))[1]
    same('lax.while_loop batched predicate', jax.vmap(wl)(A),
         np.array([2 ** (a[0, 1] + 3) for a in A]), 'int32')

    # vmap inside the (vmapped) reward, the way LLM code maps over positions
    def dists(a):
        pos = jnp.argwhere(a == WALL, size=5, fill_value=0)
        d = jax.vmap(lambda p: jnp.abs(p[0] - 8) + jnp.abs(p[1] - 8))(pos)
        return d

    def dists_ref(a):
        pos = np_argwhere_sized(a == WALL, 5)
        return np.abs(pos[:, 0] - 8) + np.abs(pos[:, 1] - 8)
    same('nested vmap', jax.vmap(dists)(A), np.stack([dists_ref(a) for a in A]), 'int32')
    same('vmap in_axes', jax.vmap(lambda a, k: jnp.sum(a == k), in_axes=(0, None))(A, KEY),
         np.array([np.sum(a == KEY) for a in A]), 'int32')
    same('vmap over dict', jax.vmap(lambda d: d['x'] * 2)({'x': np.arange(4)}), np.arange(4) * 2, 'int32')
    same('jit static_argnums', jax.jit(lambda a, n: jnp.zeros(n) + jnp.sum(a), static_argnums=1)(A[0], 3),
         np.full(3, A[0].sum(), dtype=np.float32), 'float32')
    same('jnp.int32 callable', jax.jit(lambda a: jnp.int32(jnp.sum(a == 4)) + jnp.float32(1))(A[0]),
         np.float32(np.sum(A[0] == 4) + 1), 'float32')
    jax.config.update('jax_platform_name', 'cpu')
    try:
        jax.config.update('jax_enable_x64', True)
        check('jax_enable_x64 refused', False, 'accepted')
    except NotImplementedError as e:
        check('jax_enable_x64 refused', 'does not support jax_enable_x64' in str(e), str(e))
    check('dtype comparison', jnp.zeros(2, jnp.int32).dtype == jnp.int32 and jnp.ones(1).dtype == jnp.float32)
    check('concrete arrays convert', bool(jnp.array(3) > 2) and int(jnp.array(7)) == 7 and
          float(jnp.sum(jnp.ones(4))) == 4.0)


# ------------------------------------------------------------------------------------------------
# 3. Refused constructs


def expect_error(name, fn, exc_name, first_line_part):
    """`fn` run as the official loop runs rewards must fail with `exc_name` whose message's first
    line contains `first_line_part`."""
    A = random_maps(np.random.default_rng(1), 4)
    try:
        jax.pcglab_reward_batch(fn, A, A)
    except Exception as e:  # noqa: BLE001
        first = str(e).split('\n')[0]
        names = [c.__name__ for c in type(e).__mro__]
        check('refuses ' + name, exc_name in names and first_line_part in first,
              '%s: %s' % (type(e).__name__, first))
        return
    check('refuses ' + name, False, 'no error raised')


def check_refusals():
    E = 'TracerBoolConversionError'
    expect_error('python if', lambda p, ps, c, cs: 1.0 if jnp.sum(c == KEY) > 0 else 0.0, E,
                 'Attempted boolean conversion of traced array with shape bool[].')
    expect_error('bool()', lambda p, ps, c, cs: float(bool(c[0, 0])), E,
                 'Attempted boolean conversion of traced array with shape int32[].')
    expect_error('and/or on arrays', lambda p, ps, c, cs: (jnp.any(c == 4) and jnp.any(c == 5)) * 1.0,
                 E, 'Attempted boolean conversion')
    expect_error('int()', lambda p, ps, c, cs: int(jnp.sum(c == KEY)) * 1.0, 'ConcretizationTypeError',
                 'Abstract tracer value encountered where concrete value is expected: traced array '
                 'with shape int32[].')
    expect_error('float()', lambda p, ps, c, cs: float(jnp.mean(c)), 'ConcretizationTypeError',
                 'Abstract tracer value encountered where concrete value is expected')
    expect_error('.item()', lambda p, ps, c, cs: jnp.sum(c).item(), 'ConcretizationTypeError',
                 'Abstract tracer value encountered where concrete value is expected')
    expect_error('range(traced)', lambda p, ps, c, cs: sum(range(jnp.sum(c == KEY))),
                 'TracerIntegerConversionError',
                 'The __index__() method was called on traced array with shape int32[].')
    expect_error('list index with traced', lambda p, ps, c, cs: [1.0, 2.0][c[0, 0]],
                 'TracerIntegerConversionError', 'The __index__() method was called')
    expect_error('numpy ufunc on traced', lambda p, ps, c, cs: np.sqrt(jnp.sum(c == 4)) * 1.0,
                 'TracerArrayConversionError', 'The numpy.ndarray conversion method __array__() was called')
    expect_error('np.asarray(traced)', lambda p, ps, c, cs: np.sum(np.asarray(c) == KEY) * 1.0,
                 'TracerArrayConversionError',
                 'The numpy.ndarray conversion method __array__() was called on traced array with '
                 'shape int32[16,16]')
    expect_error('unique without size', lambda p, ps, c, cs: jnp.unique(c).shape[0] * 1.0,
                 'ConcretizationTypeError', 'Abstract tracer value encountered where concrete value')
    expect_error('argwhere without size', lambda p, ps, c, cs: jnp.argwhere(c == 3)[0, 0] * 1.0,
                 'ConcretizationTypeError', 'Abstract tracer value encountered where concrete value')
    expect_error('nonzero without size', lambda p, ps, c, cs: jnp.nonzero(c == 3)[0].sum() * 1.0,
                 'ConcretizationTypeError', 'Abstract tracer value encountered where concrete value')
    expect_error('where without size', lambda p, ps, c, cs: jnp.where(c == 3)[0].sum() * 1.0,
                 'ConcretizationTypeError', 'Abstract tracer value encountered where concrete value')
    expect_error('boolean mask', lambda p, ps, c, cs: jnp.sum(c[c > 3]) * 1.0,
                 'NonConcreteBooleanIndexError', 'Array boolean indices must be concrete; got bool[16,16]')
    expect_error('traced slice', lambda p, ps, c, cs: jnp.sum(c[c[0, 0]:c[0, 0] + 2]) * 1.0,
                 'IndexError', 'Array slice indices must have static start/stop/step to be used with '
                 'NumPy indexing syntax.')
    expect_error('item assignment', _assign, 'TypeError',
                 "object does not support item assignment. JAX arrays are immutable.")
    expect_error('traced shape', lambda p, ps, c, cs: jnp.zeros(jnp.sum(c == 7)).sum(), 'TypeError',
                 'Shapes must be 1D sequences of concrete values of integer type')
    expect_error('traced arange', lambda p, ps, c, cs: jnp.arange(c[0, 0]).sum(), 'ConcretizationTypeError',
                 'Abstract tracer value encountered where concrete value is expected')
    expect_error('unsupported function', lambda p, ps, c, cs: jnp.fft.fft(c).real.sum(), 'AttributeError',
                 "pcglab's jax stand-in does not support jnp.fft")
    expect_error('unsupported array method', lambda p, ps, c, cs: c.searchsorted(3).sum() * 1.0, 'AttributeError',
                 "pcglab's jax stand-in does not support jax.Array.searchsorted")
    expect_error('unsupported lax function', lambda p, ps, c, cs: lax.reduce_window(c), 'AttributeError',
                 "pcglab's jax stand-in does not support jax.lax.reduce_window")
    expect_error('2-D jnp.convolve', lambda p, ps, c, cs: jnp.convolve(c, K3).sum(), 'ValueError',
                 'convolve() only support 1-dimensional inputs.')
    expect_error('cond branch types', lambda p, ps, c, cs: lax.cond(c[0, 0] > 1, lambda: c[0], lambda: c),
                 'TypeError', 'true_fun and false_fun output must have identical types')
    expect_error('cond branches int vs float', lambda p, ps, c, cs: lax.cond(c[0, 0] > 1, lambda: 1.0, lambda: 0),
                 'TypeError', 'true_fun and false_fun output must have identical types, got')
    expect_error('strong int carry given floats', lambda p, ps, c, cs: lax.fori_loop(
        0, 3, lambda i, acc: acc + 0.5, jnp.int32(0)), 'TypeError', 'body_fun output and input must have identical types')
    expect_error('while_loop int condition', lambda p, ps, c, cs: lax.while_loop(
        lambda s: s, lambda s: s - 1, c[0, 0]) * 1.0, 'TypeError', 'cond_fun must return a boolean scalar')
    expect_error('lax.select mixed dtypes', lambda p, ps, c, cs: lax.select(c[0, 0] > 1, 1.0, 0),
                 'TypeError', 'lax.select requires arguments to have the same dtypes')
    # A reward with no return statement: the error says so, not the stand-in's AttributeError.
    expect_error('None reward', lambda p, ps, c, cs: None, 'TypeError',
                 'reward returned None; expected a number or an array')
    expect_error('non-scalar reward', lambda p, ps, c, cs: (c == 7).astype(jnp.float32), 'TypeError',
                 'compute_reward must return a scalar')
    expect_error('list argument', lambda p, ps, c, cs: jnp.sum([jnp.sum(c == 4), 1]) * 1.0, 'TypeError',
                 "sum requires ndarray or scalar arguments, got <class 'list'> at position 0.")
    expect_error('list operand', lambda p, ps, c, cs: jnp.sum(c[0] + [1] * 16) * 1.0, 'TypeError',
                 "unsupported operand type(s) for +: 'Array' and 'list'")
    same('== None is False, as JAX operators defer', jax.jit(lambda a: a == None)(np.arange(3)),  # noqa: E711
         False)
    try:
        importlib.import_module('jax.random')
        check('import of a missing submodule', False, 'no error')
    except ImportError as e:
        check('import of a missing submodule', "does not support jax.random" in str(e), str(e))
    try:
        jax.pcglab_reward_batch(python_if_on_count, random_maps(np.random.default_rng(2), 2),
                                random_maps(np.random.default_rng(3), 2))
        check('traceback without stand-in frames', False, 'accepted')
    except Exception as e:  # noqa: BLE001
        text = ''.join(traceback.format_exception(type(e), e, e.__traceback__))
        check('traceback without stand-in frames', text.count('<preload jax>') == 1
              and 'in python_if_on_count' in text and 'if jnp.sum(curr_array == 7)' in text, text)
    check('hasattr is False for missing names', not hasattr(jnp, 'fft') and hasattr(jnp, 'sum'))
    check('jax holds only JAX names', not hasattr(jax, 'where') and not hasattr(jax, 'sum')
          and not hasattr(jax, 'np') and hasattr(jax, 'jit') and hasattr(jax, 'vmap'))
    expect_error('a jnp function called from jax', lambda p, ps, c, cs: jax.sum(c == 7) * 1.0,
                 'AttributeError', "pcglab's jax stand-in does not support jax.sum")


def _assign(p, ps, c, cs):
    m = jnp.zeros((16, 16))
    m[0, 0] = 1.0
    return jnp.sum(m)


# ------------------------------------------------------------------------------------------------
# 4. Realistic rewards: accepted ones with an independent numpy reference each

def count(a, t):
    return int(np.sum(a == t))


def pos_of(a, t):
    w = np.argwhere(a == t)
    return (int(w[0][0]), int(w[0][1])) if len(w) else None


ACCEPTED = {}
REFUSED = {}


def reward(ref, table=ACCEPTED):
    def deco(src):
        table[src.__name__] = (src, ref)
        return src
    return deco


# 1. key count delta towards exactly one key
def _r1_ref(p, c):
    return abs(count(p, KEY) - 1) - abs(count(c, KEY) - 1)


@reward(_r1_ref)
def key_delta(prev_array, unused3, curr_array, unused4):
    prev_keys = jnp.sum(prev_array == 7)
    curr_keys = jnp.sum(curr_array == 7)
    reward = jnp.abs(prev_keys - 1) - jnp.abs(curr_keys - 1)
    return reward.astype(float)


# 2. bats towards 2, other monsters penalised, weighted
def _r2_ref(p, c):
    def score(a):
        return -abs(count(a, BAT) - 2) * 1.5 - 0.5 * (count(a, SCORPION) + count(a, SPIDER))
    return score(c) - score(p)


@reward(_r2_ref)
def bat_scenario(prev_array, unused3, curr_array, unused4):
    EMPTY, WALL, PLAYER, BAT, SCORPION, SPIDER, KEY, DOOR = 1, 2, 3, 4, 5, 6, 7, 8
    TARGET_BATS = 2

    def score(m):
        n_bats = jnp.sum(m == BAT)
        others = jnp.sum(m == SCORPION) + jnp.sum(m == SPIDER)
        return -jnp.abs(n_bats - TARGET_BATS) * 1.5 - 0.5 * others
    return score(curr_array) - score(prev_array)


# 3. player-door distance via argwhere(size=1)
def _r3_ref(p, c):
    def dist(a):
        pp, dd = pos_of(a, PLAYER), pos_of(a, DOOR)
        if pp is None or dd is None:
            return 0.0
        return float(abs(pp[0] - dd[0]) + abs(pp[1] - dd[1]))
    return (min(dist(c), 20.0) - min(dist(p), 20.0)) / 20.0


@reward(_r3_ref)
def player_door_distance(prev_array, unused3, curr_array, unused4):
    def dist(m):
        player = jnp.argwhere(m == 3, size=1, fill_value=-1)[0]
        door = jnp.argwhere(m == 8, size=1, fill_value=-1)[0]
        valid = jnp.logical_and(player[0] >= 0, door[0] >= 0)
        d = jnp.sum(jnp.abs(player - door))
        return jnp.where(valid, d, 0).astype(jnp.float32)
    return (jnp.minimum(dist(curr_array), 20.0) - jnp.minimum(dist(prev_array), 20.0)) / 20.0


# 4. bats next to empty floor, via convolve2d
def _r4_ref(p, c):
    def s(a):
        k = np_conv2d((a == EMPTY).astype(np.int64), K3, 'same')
        return float(np.sum((a == BAT) & (k >= 3)))
    return 0.1 * (s(c) - s(p))


@reward(_r4_ref)
def bats_in_open_space(prev_array, unused3, curr_array, unused4):
    kernel = jnp.array([[1, 1, 1], [1, 0, 1], [1, 1, 1]])

    def open_bats(m):
        empty_neighbours = jax.scipy.signal.convolve2d((m == 1).astype(jnp.int32), kernel, mode='same')
        return jnp.sum(jnp.logical_and(m == 4, empty_neighbours >= 3))
    return 0.1 * (open_bats(curr_array) - open_bats(prev_array))


# 5. static loops over rows: penalise rows that are almost all wall
def _r5_ref(p, c):
    def s(a):
        total = 0.0
        for i in range(16):
            w = np.sum(a[i] == WALL)
            if w > 12:
                total -= (w - 12) * 0.25
        return total
    return s(c) - s(p)


@reward(_r5_ref)
def no_wall_rows(prev_array, unused3, curr_array, unused4):
    def penalty(m):
        total = 0.0
        for i in range(m.shape[0]):
            walls = jnp.sum(m[i, :] == 2)
            total = total - jnp.maximum(walls - 12, 0) * 0.25
        return total
    return penalty(curr_array) - penalty(prev_array)


# 6. lax.cond on the number of keys
def _r6_ref(p, c):
    def s(a):
        return 1.0 if count(a, KEY) == 1 else -0.2 * abs(count(a, KEY) - 1)
    return s(c) - s(p)


@reward(_r6_ref)
def one_key_cond(prev_array, unused3, curr_array, unused4):
    def s(m):
        n = jnp.sum(m == 7)
        return jax.lax.cond(n == 1, lambda: 1.0, lambda: -0.2 * jnp.abs(n - 1).astype(jnp.float32))
    return s(curr_array) - s(prev_array)


# 7. 4-neighbourhood of the player via pad + shifted slices + .at[].set
def _r7_ref(p, c):
    def s(a):
        pp = pos_of(a, PLAYER)
        if pp is None:
            return 0.0
        free = 0
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            r, cc = pp[0] + dr, pp[1] + dc
            if 0 <= r < 16 and 0 <= cc < 16 and a[r, cc] != WALL:
                free += 1
        return float(free)
    return 0.25 * (s(c) - s(p))


@reward(_r7_ref)
def player_not_boxed_in(prev_array, unused3, curr_array, unused4):
    def s(m):
        walls = jnp.pad(m == 2, 1, constant_values=True)
        pos = jnp.argwhere(m == 3, size=1, fill_value=-1)[0]
        has_player = pos[0] >= 0
        mask = jnp.zeros((18, 18), dtype=jnp.bool_)
        mask = mask.at[pos[0] + 1, pos[1] + 1].set(has_player)
        neighbours = mask[:-2, 1:-1] | mask[2:, 1:-1] | mask[1:-1, :-2] | mask[1:-1, 2:]
        open_cells = jnp.logical_and(neighbours, ~walls[1:-1, 1:-1])
        return jnp.sum(open_cells).astype(jnp.float32)
    return 0.25 * (s(curr_array) - s(prev_array))


# 8. number of distinct tile types via unique(size=)
def _r8_ref(p, c):
    return (len(np.unique(c)) - len(np.unique(p))) * 0.3


@reward(_r8_ref)
def tile_variety(prev_array, unused3, curr_array, unused4):
    def variety(m):
        u = jnp.unique(m, size=9, fill_value=-1)
        return jnp.sum(u >= 0)
    return (variety(curr_array) - variety(prev_array)) * 0.3


# 9. enemies in the 5x5 window around the player via dynamic_slice
def _r9_ref(p, c):
    def s(a):
        pp = pos_of(a, PLAYER)
        if pp is None:
            return 0.0
        r = min(max(pp[0] - 2, 0), 11)
        cc = min(max(pp[1] - 2, 0), 11)
        w = a[r:r + 5, cc:cc + 5]
        return float(np.sum((w >= BAT) & (w <= SPIDER)))
    return s(c) - s(p)


@reward(_r9_ref)
def enemies_near_player(prev_array, unused3, curr_array, unused4):
    def s(m):
        pos = jnp.argwhere(m == 3, size=1, fill_value=-1)[0]
        window = jax.lax.dynamic_slice(m, (pos[0] - 2, pos[1] - 2), (5, 5))
        enemies = jnp.sum((window >= 4) & (window <= 6))
        return jnp.where(pos[0] >= 0, enemies, 0)
    return (s(curr_array) - s(prev_array)).astype(jnp.float32)


# 10. mean key-to-door distance with an inner vmap over key positions
def _r10_ref(p, c):
    def s(a):
        d = pos_of(a, DOOR)
        keys = np.argwhere(a == KEY)[:5]
        if d is None or len(keys) == 0:
            return 0.0
        return float(np.mean([abs(k[0] - d[0]) + abs(k[1] - d[1]) for k in keys]))
    return (s(c) - s(p)) / 10.0


@reward(_r10_ref)
def key_door_spread(prev_array, unused3, curr_array, unused4):
    def s(m):
        door = jnp.argwhere(m == 8, size=1, fill_value=-1)[0]
        keys = jnp.argwhere(m == 7, size=5, fill_value=-1)
        valid = keys[:, 0] >= 0
        dists = jax.vmap(lambda k: jnp.abs(k[0] - door[0]) + jnp.abs(k[1] - door[1]))(keys)
        n = jnp.sum(valid)
        mean = jnp.sum(jnp.where(valid, dists, 0)) / jnp.maximum(n, 1)
        return jnp.where(jnp.logical_and(n > 0, door[0] >= 0), mean, 0.0)
    return (s(curr_array) - s(prev_array)) / 10.0


# 11. left-right symmetry of walls via flip, with tanh scaling
def _r11_ref(p, c):
    def s(a):
        w = (a == WALL).astype(np.float32)
        return np.float32(np.sum(w * w[:, ::-1])) / np.float32(np.sum(w) + 1)
    return float(np.tanh(np.float32(2.0) * (s(c) - s(p))))


@reward(_r11_ref)
def symmetric_walls(prev_array, unused3, curr_array, unused4):
    def s(m):
        w = (m == 2).astype(jnp.float32)
        return jnp.sum(w * jnp.flip(w, axis=1)) / (jnp.sum(w) + 1)
    return jnp.tanh(2.0 * (s(curr_array) - s(prev_array)))


# 12. wall run transitions with diff, clipped
def _r12_ref(p, c):
    def s(a):
        w = (a == WALL).astype(np.int64)
        return np.sum(np.abs(np.diff(w, axis=1))) + np.sum(np.abs(np.diff(w, axis=0)))
    return float(np.clip((s(p) - s(c)) * 0.05, -1.0, 1.0))


@reward(_r12_ref)
def fewer_wall_fragments(prev_array, unused3, curr_array, unused4):
    def fragments(m):
        w = (m == 2).astype(jnp.int32)
        return jnp.sum(jnp.abs(jnp.diff(w, axis=1))) + jnp.sum(jnp.abs(jnp.diff(w, axis=0)))
    return jnp.clip((fragments(prev_array) - fragments(curr_array)) * 0.05, -1.0, 1.0)


# 13. kron-upsampled quadrant occupancy: monsters spread over the four quadrants
def _r13_ref(p, c):
    def s(a):
        m = (a >= BAT) & (a <= SPIDER)
        q = [m[:8, :8].any(), m[:8, 8:].any(), m[8:, :8].any(), m[8:, 8:].any()]
        return float(sum(q))
    return 0.5 * (s(c) - s(p))


@reward(_r13_ref)
def monsters_in_quadrants(prev_array, unused3, curr_array, unused4):
    def s(m):
        monsters = jnp.logical_and(m >= 4, m <= 6).astype(jnp.int32)
        quadrant_id = jnp.kron(jnp.array([[0, 1], [2, 3]]), jnp.ones((8, 8), dtype=jnp.int32))
        covered = 0
        for q in range(4):
            covered = covered + jnp.any((quadrant_id == q) & (monsters == 1)).astype(jnp.int32)
        return covered
    return 0.5 * (s(curr_array) - s(prev_array))


# 14. fori_loop over tile types with per-type weights, from a jnp array table
def _r14_ref(p, c):
    w = np.array([0, 0, 0, -0.1, 0.3, -0.3, -0.3, 0.2, 0.1], dtype=np.float32)

    def s(a):
        return float(sum(w[t] * min(count(a, t), 3) for t in range(9)))
    return s(c) - s(p)


@reward(_r14_ref)
def weighted_tiles_fori(prev_array, unused3, curr_array, unused4):
    weights = jnp.array([0.0, 0.0, 0.0, -0.1, 0.3, -0.3, -0.3, 0.2, 0.1])

    def s(m):
        def body(t, acc):
            return acc + weights[t] * jnp.minimum(jnp.sum(m == t), 3)
        return jax.lax.fori_loop(0, 9, body, 0.0)
    return s(curr_array) - s(prev_array)


# 15. row profile smoothed with a 1-D convolve, jnp.max, and the stats argument
def _r15_ref(p, c):
    def s(a):
        rows = np.sum(a == EMPTY, axis=1).astype(np.int64)
        smooth = np.convolve(rows, [1, 2, 1], mode='same')
        return float(np.max(smooth)) / 64.0
    return s(c) - s(p)


@reward(_r15_ref)
def open_corridor_rows(prev_array, prev_stats, curr_array, curr_stats):
    def s(m):
        rows = jnp.sum(m == 1, axis=1)
        smooth = jnp.convolve(rows, jnp.array([1, 2, 1]), mode='same')
        return jnp.max(smooth) / 64.0
    regions_unchanged = curr_stats['N_REGIONS'] - prev_stats['N_REGIONS']
    return s(curr_array) - s(prev_array) + 0.0 * regions_unchanged


# 16. an .at[].add histogram of enemy types, rewarding the two scenario types
def _r16_ref(p, c):
    def s(a):
        h = np.bincount(a.ravel(), minlength=9)
        return float(min(h[BAT], 2) + min(h[SCORPION], 2) - 2 * h[SPIDER])
    return 0.2 * (s(c) - s(p))


@reward(_r16_ref)
def histogram_at_add(prev_array, unused3, curr_array, unused4):
    def s(m):
        hist = jnp.zeros(9, dtype=jnp.int32).at[m.flatten()].add(1)
        return jnp.minimum(hist[4], 2) + jnp.minimum(hist[5], 2) - 2 * hist[6]
    return 0.2 * (s(curr_array) - s(prev_array))


# 17. reachability by flood fill in a lax.while_loop (a BFS the way LLMs write it in JAX)
def _reachable(a, start_tile, passable):
    from collections import deque
    starts = np.argwhere(a == start_tile)
    seen = np.zeros(a.shape, bool)
    q = deque()
    for r, c in starts:
        seen[r, c] = True
        q.append((r, c))
    while q:
        r, c = q.popleft()
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < 16 and 0 <= cc < 16 and not seen[rr, cc] and passable[rr, cc]:
                seen[rr, cc] = True
                q.append((rr, cc))
    return seen


def _r17_ref(p, c):
    def s(a):
        seen = _reachable(a, PLAYER, a != WALL)
        key_ok = np.any(seen & (a == KEY))
        door_ok = np.any(seen & (a == DOOR))
        return float(key_ok) + float(door_ok) + 0.01 * float(np.sum(seen))
    return s(c) - s(p)


@reward(_r17_ref)
def reachable_key_and_door(prev_array, unused3, curr_array, unused4):
    WALL, PLAYER, KEY, DOOR = 2, 3, 7, 8

    def flood(m):
        passable = m != WALL
        start = m == PLAYER

        def step(state):
            reach, _ = state
            grow = jnp.zeros_like(reach)
            grow = grow.at[1:, :].set(grow[1:, :] | reach[:-1, :])
            grow = grow.at[:-1, :].set(grow[:-1, :] | reach[1:, :])
            grow = grow.at[:, 1:].set(grow[:, 1:] | reach[:, :-1])
            grow = grow.at[:, :-1].set(grow[:, :-1] | reach[:, 1:])
            new = jnp.logical_or(reach, jnp.logical_and(grow, passable))
            return new, jnp.any(new != reach)
        reach, _ = jax.lax.while_loop(lambda st: st[1], step, (start, True))
        return reach

    def s(m):
        reach = flood(m)
        key_ok = jnp.any(reach & (m == KEY)).astype(jnp.float32)
        door_ok = jnp.any(reach & (m == DOOR)).astype(jnp.float32)
        return key_ok + door_ok + 0.01 * jnp.sum(reach)
    return s(curr_array) - s(prev_array)


# 18. the shape GPT-4o's rewards often have: constants, running reward, jnp.where, jnp.inf
def _r18_ref(p, c):
    r = 0.0
    pb, cb = count(p, BAT), count(c, BAT)
    r += 1.0 if cb > pb and cb <= 3 else 0.0
    r -= 0.5 * max(count(c, SCORPION) + count(c, SPIDER) - count(p, SCORPION) - count(p, SPIDER), 0)
    pp = pos_of(c, PLAYER)
    bats = np.argwhere(c == BAT)[:10]
    if pp is not None and len(bats):
        d = np.min(np.abs(bats - np.array(pp)).sum(1))
        r += 0.5 if d < 5 else 0.0
    elif pp is None and len(bats):
        d = np.min(np.abs(bats - np.array([-1, -1])).sum(1))
        r += 0.5 if d < 5 else 0.0
    return r


@reward(_r18_ref)
def gpt_style_bat_reward(prev_array, unused3, curr_array, unused4):
    reward = 0.0
    EMPTY = 1
    WALL = 2
    PLAYER = 3
    BAT = 4
    SCORPION = 5
    SPIDER = 6
    prev_bat_count = jnp.sum(prev_array == BAT)
    curr_bat_count = jnp.sum(curr_array == BAT)
    reward += jnp.where((curr_bat_count > prev_bat_count) & (curr_bat_count <= 3), 1.0, 0.0)
    prev_others = jnp.sum(prev_array == SCORPION) + jnp.sum(prev_array == SPIDER)
    curr_others = jnp.sum(curr_array == SCORPION) + jnp.sum(curr_array == SPIDER)
    reward -= 0.5 * jnp.maximum(curr_others - prev_others, 0)
    player_pos = jnp.argwhere(curr_array == PLAYER, size=1, fill_value=-1)
    bat_pos = jnp.argwhere(curr_array == BAT, size=10, fill_value=-1)
    distances = jnp.abs(player_pos - bat_pos).sum(axis=1)
    valid = bat_pos[:, 0] != -1
    min_dist = jnp.min(jnp.where(valid, distances, jnp.inf))
    reward += jnp.where(min_dist < 5, 0.5, 0.0)
    return reward


# Refused rewards (the reward, the error class, a part of the first line)
REFUSED_REWARDS = []


def refused(exc_name, text):
    def deco(f):
        REFUSED_REWARDS.append((f.__name__, f, exc_name, text))
        return f
    return deco


@refused('TracerBoolConversionError', 'Attempted boolean conversion of traced array')
def python_if_on_count(prev_array, unused3, curr_array, unused4):
    reward = 0.0
    if jnp.sum(curr_array == 7) > jnp.sum(prev_array == 7):
        reward += 1.0
    return reward


@refused('TracerBoolConversionError', 'Attempted boolean conversion of traced array')
def python_while_on_value(prev_array, unused3, curr_array, unused4):
    i = 0
    while curr_array[0, i] == 2:
        i += 1
    return float(i)


@refused('ConcretizationTypeError', 'Abstract tracer value encountered where concrete value is expected')
def int_of_count(prev_array, unused3, curr_array, unused4):
    n = int(jnp.sum(curr_array == 4))
    return n * 0.5


@refused('ConcretizationTypeError', 'Abstract tracer value encountered where concrete value is expected')
def unique_without_size(prev_array, unused3, curr_array, unused4):
    kinds = jnp.unique(curr_array)
    return kinds.shape[0] * 0.1


@refused('IndexError', 'Array slice indices must have static start/stop/step')
def slice_around_player(prev_array, unused3, curr_array, unused4):
    pos = jnp.argwhere(curr_array == 3, size=1)[0]
    window = curr_array[pos[0] - 1:pos[0] + 2, pos[1] - 1:pos[1] + 2]
    return jnp.sum(window == 4) * 1.0


@refused('TypeError', 'object does not support item assignment. JAX arrays are immutable.')
def in_place_update(prev_array, unused3, curr_array, unused4):
    counts = jnp.zeros(9)
    for t in range(9):
        counts[t] = jnp.sum(curr_array == t)
    return counts[4] - counts[5]


@refused('NonConcreteBooleanIndexError', 'Array boolean indices must be concrete')
def mask_indexing(prev_array, unused3, curr_array, unused4):
    enemies = curr_array[curr_array >= 4]
    return jnp.sum(enemies <= 6) * 1.0


@refused('TracerIntegerConversionError', 'The __index__() method was called on traced array')
def range_over_count(prev_array, unused3, curr_array, unused4):
    total = 0.0
    for _ in range(jnp.sum(curr_array == 7)):
        total += 0.5
    return total


@refused('ConcretizationTypeError', 'Abstract tracer value encountered where concrete value is expected')
def argwhere_without_size(prev_array, unused3, curr_array, unused4):
    keys = jnp.argwhere(curr_array == 7)
    return keys.shape[0] * 1.0


@refused('TracerArrayConversionError', 'The numpy.ndarray conversion method __array__() was called')
def numpy_inside(prev_array, unused3, curr_array, unused4):
    import numpy as onp
    return float(onp.count_nonzero(onp.array(curr_array) == 8))


@refused('ConcretizationTypeError', 'Abstract tracer value encountered where concrete value is expected')
def float_of_mean(prev_array, unused3, curr_array, unused4):
    return float(jnp.mean(curr_array == 2)) - 0.4


@refused('TypeError', 'max requires ndarray or scalar arguments')
def max_of_python_list(prev_array, unused3, curr_array, unused4):
    bats = jnp.sum(curr_array == 4)
    scorpions = jnp.sum(curr_array == 5)
    return jnp.max([bats, scorpions]) * 0.1


@refused('AttributeError', "pcglab's jax stand-in does not support jnp.fft")
def unsupported_fft(prev_array, unused3, curr_array, unused4):
    spectrum = jnp.fft.fft2(curr_array)
    return jnp.abs(spectrum).sum()


def check_rewards(rng):
    P = random_maps(rng, 64)
    C = P.copy()
    # Each step changes one tile, as the narrow representation does; some steps change nothing.
    for i in range(64):
        if i % 5:
            C[i, rng.integers(16), rng.integers(16)] = rng.integers(1, 9)
    # A few hand-made maps where the rewards have obvious values.
    P[0] = EMPTY
    C[0] = EMPTY
    C[0, 2, 2] = KEY
    C[0, 5, 5] = PLAYER
    C[0, 5, 9] = DOOR
    P[0, 5, 5] = PLAYER
    P[0, 1, 5] = DOOR
    for name, (f, ref) in ACCEPTED.items():
        try:
            got = jax.pcglab_reward_batch(f, P, C)
        except Exception:
            check('reward %s accepted' % name, False, traceback.format_exc())
            continue
        want = np.array([ref(P[i], C[i]) for i in range(len(P))], dtype=np.float64)
        ok = got.dtype == np.float32 and got.shape == (64,) and np.allclose(got, want, rtol=1e-5, atol=1e-5)
        bad = np.flatnonzero(~np.isclose(got, want, rtol=1e-5, atol=1e-5)) if got.shape == (64,) else []
        check('reward %s values' % name, ok, 'items %s: got %s expected %s'
              % (list(bad[:3]), got[bad[:3]] if len(bad) else got[:3], want[bad[:3]] if len(bad) else want[:3]))
        # Bit for bit the same whichever way the environments are grouped into calls.
        parts = np.concatenate([jax.pcglab_reward_batch(f, P[i:i + 7], C[i:i + 7]) for i in range(0, 64, 7)])
        check('reward %s independent of the batch split' % name,
              np.array_equal(parts.view(np.uint32), got.view(np.uint32)), '%s vs %s' % (parts[:4], got[:4]))
        one = jax.jit(f)(P[7], {'N_REGIONS': 0.0}, C[7], {'N_REGIONS': 0.0})
        check('reward %s unbatched = batched' % name, abs(float(one) - float(got[7])) <= 1e-5 * (1 + abs(float(got[7]))),
              '%s vs %s' % (float(one), got[7]))
    # Hand-known values on map 0: one key appears (|0-1| - |1-1| = 1); player-door distance 4 -> 4
    hand = {'key_delta': 1.0, 'player_door_distance': 0.0, 'tile_variety': 0.3}
    for name, value in hand.items():
        got = jax.pcglab_reward_batch(ACCEPTED[name][0], P[:1], C[:1])[0]
        check('reward %s on the hand-made map' % name, abs(got - value) < 1e-6, '%s != %s' % (got, value))
    check('at least 12 accepted rewards', len(ACCEPTED) >= 12, str(len(ACCEPTED)))
    check('at least 8 refused rewards', len(REFUSED_REWARDS) >= 8, str(len(REFUSED_REWARDS)))
    for name, f, exc_name, text in REFUSED_REWARDS:
        try:
            jax.pcglab_reward_batch(f, P, C)
            check('reward %s refused' % name, False, 'accepted')
        except Exception as e:  # noqa: BLE001
            names = [c.__name__ for c in type(e).__mro__]
            first = str(e).split('\n')[0]
            check('reward %s refused' % name, exc_name in names and text in first,
                  '%s: %s' % (type(e).__name__, first))


# ------------------------------------------------------------------------------------------------
# Benchmark: a reward of about 30 array operations over 600 environments

@reward(lambda p, c: 0.0, table={})
def bench_reward(prev_array, unused3, curr_array, unused4):
    def s(m):
        keys = jnp.sum(m == 7)
        bats = jnp.sum(m == 4)
        others = jnp.sum(m == 5) + jnp.sum(m == 6)
        player = jnp.argwhere(m == 3, size=1, fill_value=-1)[0]
        door = jnp.argwhere(m == 8, size=1, fill_value=-1)[0]
        dist = jnp.sum(jnp.abs(player - door))
        open_n = jax.scipy.signal.convolve2d((m == 1).astype(jnp.int32), jnp.ones((3, 3), jnp.int32),
                                             mode='same')
        open_bats = jnp.sum(jnp.logical_and(m == 4, open_n >= 4))
        score = (-jnp.abs(keys - 1) - jnp.abs(bats - 2) * 0.5 - 0.3 * others
                 + jnp.minimum(dist, 20) / 20.0 + 0.1 * open_bats)
        return jax.lax.cond(keys > 0, lambda: score, lambda: score - 1.0)
    return s(curr_array) - s(prev_array)


def bench():
    """Batched calls (the way pcglab runs rewards) and one call per environment, for 600
    environments; five rounds of about a second each: median and best (the machine is shared)."""
    rng = np.random.default_rng(0)
    P = random_maps(rng, 600)
    C = random_maps(rng, 600)
    jax.pcglab_reward_batch(bench_reward, P, C)
    rounds = []
    for _ in range(5):
        n = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < 1.0:
            jax.pcglab_reward_batch(bench_reward, P, C)
            n += 1
        rounds.append((time.perf_counter() - t0) / n)
    rounds.sort()
    med, best = rounds[2], rounds[0]
    print('batched, 600 envs per call: median %.2f ms (%.0f calls/s, %.0f env-steps/s), best %.2f ms '
          '(%.0f calls/s)' % (med * 1e3, 1 / med, 600 / med, best * 1e3, 1 / best))
    f = jax.jit(bench_reward)
    t0 = time.perf_counter()
    for i in range(600):
        f(P[i], None, C[i], None)
    dt1 = time.perf_counter() - t0
    print('one env per call (jax.jit without vmap): %.0f ms per 600 envs, %.0f env-steps/s'
          % (dt1 * 1e3, 600 / dt1))


def main():
    seed = 20261123
    if '--seed' in sys.argv:
        seed = int(sys.argv[sys.argv.index('--seed') + 1])
    elif os.environ.get('PCGLAB_TEST_SEED'):
        seed = int(os.environ['PCGLAB_TEST_SEED'])
    if '--bench' in sys.argv:
        bench()
        return 0
    rng = np.random.default_rng(seed)
    for part in (check_semantics, check_documented_examples, check_indexing_fuzz, check_at, check_lax):
        try:
            part(rng)
        except Exception:
            check(part.__name__, False, traceback.format_exc())
    for part in (check_refusals,):
        try:
            part()
        except Exception:
            check(part.__name__, False, traceback.format_exc())
    try:
        check_rewards(rng)
    except Exception:
        check('check_rewards', False, traceback.format_exc())
    if FAILURES:
        for f in FAILURES:
            print('FAIL', f)
        print('%d of %d checks failed (seed %d; rerun with --seed %d)'
              % (len(FAILURES), CHECKS[0], seed, seed))
        return 1
    print('all %d checks passed (seed %d, %d accepted and %d refused rewards, %d random index '
          'expressions, %d with traced index arrays)'
          % (CHECKS[0], seed, len(ACCEPTED), len(REFUSED_REWARDS), STATS['index cases'],
             STATS['with traced arrays']))
    return 0


if __name__ == '__main__':
    sys.exit(main())
