"""pcglab's numpy-backed stand-in for the parts of JAX that LLM-written reward functions use.

Why: PCGRLLM's LLM writes `compute_reward(prev_array, prev_stats, curr_array, curr_stats)` in
JAX, for one environment's 16x16 int32 map, and the official loop runs it as
`jax.jit(jax.vmap(compute_reward))`. pcglab has no JAX; the reward runs in a sandboxed
/usr/bin/python3 with numpy. This file is the `jax` those rewards import.

How it is loaded: this one source is executed as the module named `jax` (the sandbox's preload
hook, or `load_as_jax()` below in tests); it creates `jax.numpy`, `jax.lax`, `jax.nn`,
`jax.scipy.signal`, `jax.debug`, `jax.errors`, `jax.tree_util` itself and puts them into
sys.modules, so `import jax`, `import jax.numpy as jnp` and `from jax import lax` all work.
`pcglab_reward_batch(compute_reward, prev, curr, ...)` runs a reward over a batch of maps.

Semantics: every value is an `Array` holding a numpy array whose first axis is the batch (vmap)
axis: size 1 for unbatched values, B when B environments are evaluated together, so a whole step
is one pass of numpy operations. Inside `jit`/`vmap` (a "trace") every array is a tracer, as
under JAX: `bool()`, `int()`, `float()`, `.item()`, `__index__`, `__array__` on it raise JAX's
errors (a Python `if` on an array value, `range(x)`, `np.asarray(x)` are refused), boolean-mask
indexing, `jnp.unique`/`nonzero`/`argwhere` without `size=` and slices with traced bounds are
refused, and arrays are immutable. Shapes stay static Python ints. Dtypes follow JAX with 64-bit
disabled: int32 and float32 by default, Python scalars weakly typed. docs/pcgrl.md lists the
supported API and every known difference from JAX.
"""

import builtins as _b
import functools
import operator
import sys
import types

import numpy as np

_NAME = __name__  # "jax" when loaded as intended
_FILE = sys._getframe().f_code.co_filename  # this source's file name, as compiled
__path__ = []  # a package: `import jax.numpy` looks for submodules
builtins_sum, builtins_any, builtins_all, builtins_max, builtins_min = _b.sum, _b.any, _b.all, _b.max, _b.min
builtins_abs = _b.abs

# ----------------------------------------------------------------------------------------------
# Errors (the first line of each message follows JAX's text)

_ERRORS_PAGE = 'https://jax.readthedocs.io/en/latest/errors.html'


class JAXTypeError(TypeError):
    pass


class JAXIndexError(IndexError):
    pass


class ConcretizationTypeError(JAXTypeError):
    pass


class TracerBoolConversionError(ConcretizationTypeError):
    pass


class TracerIntegerConversionError(JAXTypeError):
    pass


class TracerArrayConversionError(JAXTypeError):
    pass


class NonConcreteBooleanIndexError(JAXIndexError):
    pass


class UnsupportedError(NotImplementedError):
    """A JAX argument or mode this stand-in does not provide (the message names it)."""


class UnsupportedAttributeError(AttributeError):
    """A JAX function or module this stand-in does not provide (the message names it)."""


for _cls in (JAXTypeError, JAXIndexError, ConcretizationTypeError, TracerBoolConversionError,
             TracerIntegerConversionError, TracerArrayConversionError,
             NonConcreteBooleanIndexError):
    _cls.__module__ = 'jax.errors'
UnsupportedError.__module__ = 'jax.errors'
UnsupportedAttributeError.__module__ = 'jax.errors'


def _see(cls):
    return ('\nThe error occurred while tracing a function for jit/vmap (pcglab evaluates '
            'compute_reward as jax.jit(jax.vmap(compute_reward))).\nSee %s#jax.errors.%s'
            % (_ERRORS_PAGE, cls.__name__))


def _unsupported(what, cls=UnsupportedError):
    return cls("pcglab's jax stand-in does not support %s" % what)


# ----------------------------------------------------------------------------------------------
# Dtypes: JAX with 64-bit types disabled

_CANON = {np.dtype(np.float64): np.dtype(np.float32), np.dtype(np.int64): np.dtype(np.int32),
          np.dtype(np.uint64): np.dtype(np.uint32),
          np.dtype(np.complex128): np.dtype(np.complex64)}
_BOOL = np.dtype(bool)
_I32 = np.dtype(np.int32)
_F32 = np.dtype(np.float32)
_DEFAULT = {0: _BOOL, 1: _I32, 2: _F32, 3: np.dtype(np.complex64)}


def _canon(dt):
    return _CANON.get(dt, dt)


def _kind(dt):
    k = dt.kind
    return 0 if k == 'b' else 1 if k in 'iu' else 2 if k == 'f' else 3


class _ScalarType:
    """jnp.int32 and friends: usable as a dtype and callable (`jnp.int32(x)`)."""

    def __init__(self, name, dt):
        self.__name__ = name
        self.dtype = np.dtype(dt)

    def __call__(self, x):
        return asarray(x, dtype=self.dtype)

    def __eq__(self, other):
        try:
            return self.dtype == _to_dtype(other)
        except TypeError:
            return False

    def __hash__(self):
        return hash(self.dtype)

    def __repr__(self):
        return 'jnp.%s' % self.__name__


def _to_dtype(d):
    if d is None:
        return None
    if isinstance(d, _ScalarType):
        return d.dtype
    if d is bool:
        return _BOOL
    if d is int:
        return _I32
    if d is float:
        return _F32
    return _canon(np.dtype(d))


_PROMOTE = {}


def _result_dtype(d1, w1, d2, w2):
    key = (d1, w1, d2, w2)
    r = _PROMOTE.get(key)
    if r is not None:
        return r
    k1, k2 = _kind(d1), _kind(d2)
    if w1 and w2:
        r = _DEFAULT[builtins_max(k1, k2)]
    elif w1:
        r = d2 if k1 <= k2 else _DEFAULT[k1]
    elif w2:
        r = d1 if k2 <= k1 else _DEFAULT[k2]
    elif k1 != k2:
        r = d1 if k1 > k2 else d2
    else:
        r = _canon(np.promote_types(d1, d2))
    _PROMOTE[key] = r
    return r


# ----------------------------------------------------------------------------------------------
# Tracing state

_DEPTH = [0]    # > 0 inside jit/vmap: new arrays are tracers
_BATCHED = [0]  # > 0 inside a vmap whose axis is the batch axis: a nested vmap loops instead


class _Tracing:
    """Inside jit/vmap: arrays made now are tracers; numpy warnings are silenced (JAX has none)."""

    def __enter__(self):
        _DEPTH[0] += 1
        self._err = np.seterr(all='ignore')
        return self

    def __exit__(self, *exc):
        _DEPTH[0] -= 1
        np.seterr(**self._err)
        return False


def _shape_str(a):
    return '%s[%s]' % (a.dtype.name, ','.join(str(s) for s in a.shape))


def _traced_repr(a):
    return 'Traced<ShapedArray(%s)>with<BatchTrace>' % _shape_str(a)


# ----------------------------------------------------------------------------------------------
# The array type

class Array:
    """A JAX array: `_v` is a numpy array whose axis 0 is the batch axis; `_t`: a tracer."""

    __slots__ = ('_v', '_t', '_w')
    # numpy's binary operators defer to ours (ndarray + Array calls Array.__radd__); numpy ufuncs
    # called on an Array convert it with __array__, which a tracer refuses, as JAX's do.
    __array_priority__ = 1000

    def __init__(self, v, t, w=False):
        self._v = v
        self._t = t
        self._w = w  # weakly typed (made from Python scalars only), as JAX's weak_type

    # --- static facts
    @property
    def shape(self):
        return self._v.shape[1:]

    @property
    def ndim(self):
        return self._v.ndim - 1

    @property
    def size(self):
        n = 1
        for s in self._v.shape[1:]:
            n *= s
        return n

    @property
    def dtype(self):
        return self._v.dtype

    @property
    def weak_type(self):
        return self._w

    def __len__(self):
        if self._v.ndim == 1:
            raise TypeError('len() of unsized object')
        return self._v.shape[1]

    def __iter__(self):
        if self._v.ndim == 1:
            raise TypeError('iteration over a 0-d array')
        return (Array(self._v[:, i], self._t, self._w) for i in range(self._v.shape[1]))

    # --- conversions that need a concrete value
    def _concrete_scalar(self, what):
        if self._t:
            if what == 'bool':
                raise TracerBoolConversionError(
                    'Attempted boolean conversion of traced array with shape %s.'
                    % _shape_str(self) + _see(TracerBoolConversionError))
            if what == 'index':
                raise TracerIntegerConversionError(
                    'The __index__() method was called on traced array with shape %s.'
                    % _shape_str(self) + _see(TracerIntegerConversionError))
            hint = ''
            if what in ('int', 'float'):
                hint = (' If trying to convert the data type of a value, try using '
                        '`x.astype(%s)` or `jnp.array(x, %s)` instead.' % (what, what))
            raise ConcretizationTypeError(
                'Abstract tracer value encountered where concrete value is expected: traced '
                'array with shape %s.\nThe problem arose with the `%s` function.%s'
                % (_shape_str(self), what, hint) + _see(ConcretizationTypeError))
        return self._v[0]

    def __bool__(self):
        v = self._concrete_scalar('bool')
        return bool(v)

    def __int__(self):
        return int(self._concrete_scalar('int'))

    def __float__(self):
        return float(self._concrete_scalar('float'))

    def __complex__(self):
        return complex(self._concrete_scalar('complex'))

    def __index__(self):
        v = self._concrete_scalar('index')
        if self.dtype.kind not in 'iu' or self.ndim:
            raise TypeError('only integer scalar arrays can be converted to a scalar index')
        return int(v)

    def item(self, *args):
        return self._concrete_scalar('item').item(*args)

    def tolist(self):
        if self._t:
            self.__array__()
        return self._v[0].tolist()

    def __array__(self, dtype=None):
        if self._t:
            raise TracerArrayConversionError(
                'The numpy.ndarray conversion method __array__() was called on traced array '
                'with shape %s' % _shape_str(self) + _see(TracerArrayConversionError))
        v = self._v[0, ...]
        return v if dtype is None else v.astype(dtype)

    def __repr__(self):
        if self._t:
            return _traced_repr(self)
        return 'Array(%s, dtype=%s%s)' % (np.array2string(self._v[0], separator=', '),
                                           self.dtype.name, ', weak_type=True' if self._w else '')

    __str__ = __repr__

    def __format__(self, spec):
        if not spec:
            return repr(self)
        if self._t:
            self._concrete_scalar('format')
        return format(self._v[0], spec)

    def __hash__(self):
        raise TypeError("unhashable type: '%s'" % ('DynamicJaxprTracer' if self._t else 'ArrayImpl'))

    def __setitem__(self, idx, value):
        raise TypeError(
            "'<class '%s'>' object does not support item assignment. JAX arrays are immutable. "
            'Instead of ``x[idx] = y``, use ``x = x.at[idx].set(y)`` or another .at[] method: '
            'https://jax.readthedocs.io/en/latest/_autosummary/jax.numpy.ndarray.at.html'
            % ('jax._src.interpreters.partial_eval.DynamicJaxprTracer' if self._t
               else 'jaxlib.xla_extension.ArrayImpl'))

    def __getitem__(self, idx):
        return _getitem(self, idx)

    @property
    def at(self):
        return _At(self)

    # --- operators (the binary ones are added after the class, from a table)
    def __neg__(self): return _mk(np.negative(self._v), self._w)
    def __pos__(self): return self
    def __abs__(self): return _mk(np.abs(self._v), self._w)

    def __round__(self, ndigits=None):
        return round(self, ndigits or 0)

    def __invert__(self):
        return _mk(np.invert(self._v))

    # --- methods
    def astype(self, dtype):
        return _mk(self._v.astype(_to_dtype(dtype)))

    def reshape(self, *shape, order='C'):
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = shape[0]
        return reshape(self, shape)

    def sum(self, axis=None, dtype=None, out=None, keepdims=False, **kw):
        return sum(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False, **kw):
        return mean(self, axis=axis, keepdims=keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False, **kw):
        return prod(self, axis=axis, keepdims=keepdims)

    def max(self, axis=None, out=None, keepdims=False, **kw):
        return max(self, axis=axis, keepdims=keepdims)

    def min(self, axis=None, out=None, keepdims=False, **kw):
        return min(self, axis=axis, keepdims=keepdims)

    def any(self, axis=None, out=None, keepdims=False, **kw):
        return any(self, axis=axis, keepdims=keepdims)

    def all(self, axis=None, out=None, keepdims=False, **kw):
        return all(self, axis=axis, keepdims=keepdims)

    def argmax(self, axis=None, out=None, keepdims=False):
        return argmax(self, axis=axis, keepdims=keepdims)

    def argmin(self, axis=None, out=None, keepdims=False):
        return argmin(self, axis=axis, keepdims=keepdims)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return std(self, axis=axis, ddof=ddof, keepdims=keepdims)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return var(self, axis=axis, ddof=ddof, keepdims=keepdims)

    def cumsum(self, axis=None, dtype=None):
        return cumsum(self, axis=axis)

    def clip(self, min=None, max=None):
        return clip(self, min, max)

    def round(self, decimals=0):
        return round(self, decimals)

    def flatten(self):
        return ravel(self)

    def ravel(self):
        return ravel(self)

    def squeeze(self, axis=None):
        return squeeze(self, axis)

    def transpose(self, *axes):
        if len(axes) == 1 and not isinstance(axes[0], int):
            axes = axes[0]
        return transpose(self, axes or None)

    @property
    def T(self):
        return transpose(self)

    def copy(self):
        return _mk(self._v.copy())

    def nonzero(self, size=None, fill_value=None):
        return nonzero(self, size=size, fill_value=fill_value)

    def sort(self, axis=-1):
        return sort(self, axis)

    def argsort(self, axis=-1):
        return argsort(self, axis)

    def dot(self, o):
        return dot(self, o)

    def block_until_ready(self):
        return self

    def __getattr__(self, name):
        # only reached for names the class lacks: name the missing method for the LLM
        if name.startswith('__'):
            raise AttributeError(name)
        raise _unsupported('jax.Array.%s' % name, UnsupportedAttributeError)


# What operators accept: anything else gets NotImplemented, so Python decides (`x == None` is
# False, `x + "a"` a TypeError), as JAX's operators defer to unrecognised arguments.
_OPERAND_TYPES = (Array, bool, int, float, complex, np.ndarray, np.generic)


def _mk(v, w=False):
    return Array(v, _DEPTH[0] > 0, w)


def _is_weak(x):
    if isinstance(x, Array):
        return x._w
    return isinstance(x, (int, float, complex)) and not isinstance(x, bool)


def _api_name():
    """The jax function the user called (the outermost stand-in frame), for error messages."""
    f = sys._getframe(1)
    name = None
    while f is not None and f.f_code.co_filename == _FILE:
        name = f.f_code.co_name
        f = f.f_back
    if name and name.startswith('__r') and name.endswith('__'):
        name = name[3:-2]
    return (name or 'op').strip('_')


def _lift(x, pos=0, fname=None):
    """(physical numpy value with a batch axis, weakly typed?) of an operand."""
    if isinstance(x, Array):
        return x._v, x._w
    if isinstance(x, (bool, np.bool_)):
        return np.array([bool(x)]), False
    if isinstance(x, int):
        return np.array([x], dtype=np.int64), True
    if isinstance(x, float):
        return np.array([x], dtype=np.float64), True
    if isinstance(x, complex):
        return np.array([x]), True
    if isinstance(x, (np.ndarray, np.generic)):
        a = np.asarray(x)
        return a.astype(_canon(a.dtype), copy=False)[None], False
    if isinstance(x, _ScalarType):
        raise TypeError('%s requires ndarray or scalar arguments, got a dtype at position %d.'
                        % (fname or _api_name(), pos))
    raise TypeError('%s requires ndarray or scalar arguments, got %s at position %d.'
                    % (fname or _api_name(), type(x), pos))


def _align(v, n):
    """Gives a physical value logical rank n by inserting axes after the batch axis."""
    k = v.ndim - 1
    if k == n:
        return v
    return v.reshape(v.shape[:1] + (1,) * (n - k) + v.shape[1:])


def _power(a, b):
    if a.dtype.kind in 'iu' and b.dtype.kind in 'iu':
        # numpy refuses negative integer powers; XLA gives 0 (or 1/-1 for bases 1/-1).
        neg = b < 0
        if neg.any():
            r = np.power(a, np.where(neg, 0, b))
            minus_one = np.where(b % 2 == 0, 1, -1)
            special = np.where(a == 1, 1, np.where(a == -1, minus_one, 0))
            return np.where(neg, special, r).astype(r.dtype)
    return np.power(a, b)


def _binop(f, a, b, kind='arith'):
    av, aw = _lift(a, 0, getattr(f, '__name__', 'op'))
    bv, bw = _lift(b, 1, getattr(f, '__name__', 'op'))
    dt = _result_dtype(av.dtype, aw, bv.dtype, bw)
    if kind == 'div' and dt.kind in 'biu':
        dt = _F32
    if av.dtype != dt:
        av = av.astype(dt)
    if bv.dtype != dt:
        bv = bv.astype(dt)
    n = av.ndim if av.ndim >= bv.ndim else bv.ndim
    r = f(_align(av, n - 1), _align(bv, n - 1))
    if kind == 'cmp':
        return _mk(r)
    if r.dtype != dt:
        r = r.astype(dt)
    return _mk(r, aw and bw)


def _operator(name, f, kind, reflected):
    """Array.__add__ and friends: numpy-style broadcasting with JAX's dtypes; unknown operand
    types get NotImplemented, so Python decides (`x == None` is False), as JAX's operators do."""
    def op(self, o):
        if not isinstance(o, _OPERAND_TYPES):
            return NotImplemented
        return _binop(f, o, self, kind) if reflected else _binop(f, self, o, kind)
    op.__code__ = op.__code__.replace(co_name=name)
    op.__name__ = op.__qualname__ = name
    return op


for _op_name, _op_f, _op_kind, _op_reflected in (
    ('__add__', np.add, 'arith', False),
    ('__radd__', np.add, 'arith', True),
    ('__sub__', np.subtract, 'arith', False),
    ('__rsub__', np.subtract, 'arith', True),
    ('__mul__', np.multiply, 'arith', False),
    ('__rmul__', np.multiply, 'arith', True),
    ('__truediv__', np.true_divide, 'div', False),
    ('__rtruediv__', np.true_divide, 'div', True),
    ('__floordiv__', np.floor_divide, 'arith', False),
    ('__rfloordiv__', np.floor_divide, 'arith', True),
    ('__mod__', np.remainder, 'arith', False),
    ('__rmod__', np.remainder, 'arith', True),
    ('__pow__', _power, 'arith', False),
    ('__rpow__', _power, 'arith', True),
    ('__and__', np.bitwise_and, 'arith', False),
    ('__rand__', np.bitwise_and, 'arith', True),
    ('__or__', np.bitwise_or, 'arith', False),
    ('__ror__', np.bitwise_or, 'arith', True),
    ('__xor__', np.bitwise_xor, 'arith', False),
    ('__rxor__', np.bitwise_xor, 'arith', True),
    ('__lshift__', np.left_shift, 'arith', False),
    ('__rshift__', np.right_shift, 'arith', False),
    ('__lt__', np.less, 'cmp', False),
    ('__le__', np.less_equal, 'cmp', False),
    ('__gt__', np.greater, 'cmp', False),
    ('__ge__', np.greater_equal, 'cmp', False),
    ('__eq__', np.equal, 'cmp', False),
    ('__ne__', np.not_equal, 'cmp', False),
):
    setattr(Array, _op_name, _operator(_op_name, _op_f, _op_kind, _op_reflected))
Array.__matmul__ = lambda self, o: matmul(self, o) if isinstance(o, _OPERAND_TYPES) else NotImplemented
Array.__rmatmul__ = lambda self, o: matmul(o, self) if isinstance(o, _OPERAND_TYPES) else NotImplemented


def _operands(*xs):
    """Physical values with a common logical rank and a common dtype (JAX's promotion)."""
    lifted = [_lift(x, i) for i, x in enumerate(xs)]
    dt, weak = lifted[0][0].dtype, lifted[0][1]
    for v, w in lifted[1:]:
        dt, weak = _result_dtype(dt, weak, v.dtype, w), weak and w
    n = 0
    for v, _ in lifted:
        n = n if n >= v.ndim - 1 else v.ndim - 1
    return [_align(v if v.dtype == dt else v.astype(dt), n) for v, _ in lifted], dt


# ----------------------------------------------------------------------------------------------
# Axes, shapes and batches

def _phys_axis(axis, ndim):
    if axis is None:
        return tuple(range(1, ndim + 1))
    if isinstance(axis, (tuple, list)):
        return tuple(_phys_axis(a, ndim) for a in axis)
    axis = _static_int(axis, 'axis')
    if axis < -ndim or axis >= builtins_max(ndim, 1):
        raise ValueError('axis %d is out of bounds for array of dimension %d' % (axis, ndim))
    return axis + 1 if axis >= 0 else axis + ndim + 1


def _static_int(x, what):
    if isinstance(x, Array) and x._t:
        raise ConcretizationTypeError(
            'Abstract tracer value encountered where concrete value is expected: traced array '
            'with shape %s.\nThe `%s` argument must be a static (Python) integer.'
            % (_shape_str(x), what) + _see(ConcretizationTypeError))
    return operator.index(x)


def _static_shape(shape):
    if isinstance(shape, (int, np.integer)) or (isinstance(shape, Array) and shape.ndim == 0):
        shape = (shape,)
    out = []
    for s in shape:
        if isinstance(s, Array) and s._t:
            raise TypeError(
                'Shapes must be 1D sequences of concrete values of integer type, got %s.\n'
                'If using `jit`, try using `static_argnums` or applying `jit` to smaller '
                'subfunctions.' % (tuple(_traced_repr(x) if isinstance(x, Array) else x
                                         for x in shape),))
        out.append(operator.index(s))
    return tuple(out)


def _arr(x, pos=0):
    """An operand as an Array (Python scalars take JAX's default dtypes). Like JAX, jnp functions
    refuse Python lists and tuples (jnp.array/asarray accept them)."""
    if isinstance(x, Array):
        return x
    if not isinstance(x, (bool, int, float, complex, np.ndarray, np.generic)):
        _lift(x, pos)
    return asarray(x)


def _batch(*vs):
    b = 1
    for v in vs:
        if v.shape[0] != 1:
            b = v.shape[0]
    return b


def _bcast_batch(v, b):
    return v if v.shape[0] == b else np.broadcast_to(v, (b,) + v.shape[1:])


# ----------------------------------------------------------------------------------------------
# Indexing

def _slice_error(s):
    return IndexError(
        'Array slice indices must have static start/stop/step to be used with NumPy indexing '
        'syntax. Found slice(%s, %s, %s). To index a statically sized array at a dynamic '
        'position, try lax.dynamic_slice/dynamic_update_slice (JAX does not support dynamically '
        'sized arrays within JIT compiled functions).'
        % tuple(_traced_repr(x) if isinstance(x, Array) else repr(x)
                for x in (s.start, s.stop, s.step)))


def _expand_index(idx, shape):
    """Logical index -> list of items (int, slice, None, ('adv', physical int array))."""
    if not isinstance(idx, tuple):
        idx = (idx,)
    items = []
    for pos, it in enumerate(idx):
        if isinstance(it, list):
            it = np.asarray(it)
        if isinstance(it, Array):
            if it.dtype == _BOOL:
                if it._t:
                    raise NonConcreteBooleanIndexError(
                        'Array boolean indices must be concrete; got %s' % _shape_str(it)
                        + _see(NonConcreteBooleanIndexError))
                it = it._v[0]
            elif it.dtype.kind not in 'iu':
                raise TypeError('Indexer must have integer or boolean type, got indexer with '
                                'type %s at position %d, indexer value %r' % (it.dtype.name, pos, it))
            else:
                items.append(('adv', it._v))
                continue
        if isinstance(it, np.ndarray) or isinstance(it, np.generic):
            a = np.asarray(it)
            if a.dtype == _BOOL:
                if a.ndim == 0:
                    raise TypeError('JAX arrays do not support boolean scalar indices')
                for part in np.nonzero(a):
                    items.append(('adv', part[None].astype(np.int32)))
                continue
            if a.dtype.kind not in 'iu':
                raise TypeError('Indexer must have integer or boolean type, got indexer with '
                                'type %s at position %d' % (a.dtype.name, pos))
            if a.ndim == 0:
                items.append(int(a))
            else:
                items.append(('adv', a[None]))
            continue
        if isinstance(it, slice):
            for x in (it.start, it.stop, it.step):
                if isinstance(x, Array) and x._t:
                    raise _slice_error(it)
            if builtins_any(isinstance(x, Array) for x in (it.start, it.stop, it.step)):
                it = slice(*(None if x is None else operator.index(x)
                             for x in (it.start, it.stop, it.step)))
            items.append(it)
            continue
        if it is None or it is Ellipsis:
            items.append(it)
            continue
        if isinstance(it, bool):
            raise TypeError('JAX arrays do not support boolean scalar indices')
        if isinstance(it, (int, np.integer)):
            items.append(int(it))
            continue
        raise TypeError('Indexer must be an integer, slice, array or None, got %r at position %d'
                        % (type(it), pos))
    consumed = builtins_sum(1 for it in items if it is not None and it is not Ellipsis)
    if consumed > len(shape):
        raise IndexError('Too many indices for array: %d non-None/Ellipsis indices for dim %d.'
                         % (consumed, len(shape)))
    n_ell = builtins_sum(1 for it in items if it is Ellipsis)
    if n_ell > 1:
        raise IndexError('an index can only have a single ellipsis')
    fill = [slice(None)] * (len(shape) - consumed)
    if n_ell:
        k = items.index(Ellipsis)
        items = items[:k] + fill + items[k + 1:]
    else:
        items = items + fill
    return items


def _physical_index(x_v, items, mode):
    """numpy index into x_v (batch axis first) for the logical `items`; (index, perm, valid).

    JAX semantics: negative indices wrap; out-of-bound array indices are clamped (mode 'clip',
    reads) or dropped (mode 'drop', .at[] updates: `valid`, shaped (B, adv...), marks the kept
    positions); static Python ints too."""
    shape = x_v.shape[1:]
    dims = _consuming_dims(items)
    for k, (d, it) in enumerate(zip(dims, items)):
        if isinstance(it, int) and not -shape[d] <= it < shape[d]:
            # out of bounds: clamped (reads) or dropped (updates), as JAX's gather/scatter do
            items = list(items)
            items[k] = ('adv', np.array([it]))
    if not builtins_any(isinstance(it, tuple) for it in items):
        return (slice(None),) + tuple(items), None, None
    b = x_v.shape[0]
    out = list(items)
    advs = []
    oks = []
    for k, (d, it) in enumerate(zip(dims, items)):
        if isinstance(it, int):
            it = ('adv', np.array([it]))
        if isinstance(it, tuple):
            a = it[1].astype(np.int64)
            n = shape[d]
            a = np.where(a < 0, a + n, a)
            if mode == 'drop':
                oks.append((a >= 0) & (a < n))
            a = np.clip(a, 0, n - 1)
            if a.shape[0] != 1:
                b = a.shape[0]
            advs.append((k, a))
    adv_pos = [k for k, _ in advs]
    adv_nd = 0
    for _, a in advs:
        adv_nd = builtins_max(adv_nd, a.ndim - 1)
    for k, a in advs:
        out[k] = _align(a, adv_nd)
    if x_v.shape[0] == b:
        bidx = np.arange(b)
    else:
        bidx = np.zeros(b, np.int64)
    index = (bidx.reshape((b,) + (1,) * adv_nd),) + tuple(out)
    # numpy puts the broadcast advanced dims first (after our batch index): (B, adv..., basic...).
    # Per item, numpy keeps adjacent advanced indices in place: move them back there.
    adjacent = adv_pos == list(range(adv_pos[0], adv_pos[-1] + 1))
    perm = None
    if adjacent:
        before = builtins_sum(1 for it in items[:adv_pos[0]] if isinstance(it, slice) or it is None)
        if before:
            perm = (adv_nd, before)
    valid = None
    if oks:
        valid = functools.reduce(np.logical_and, [_align(o, adv_nd) for o in oks])
        adv_shape = np.broadcast_shapes(*[a.shape[1:] for _, a in advs])
        valid = np.broadcast_to(valid, (valid.shape[0],) + adv_shape)
    return index, perm, valid


def _consuming_dims(items):
    dims, d = [], 0
    for it in items:
        dims.append(d)
        if it is not None:
            d += 1
    return dims


def _move_adv(r, perm):
    """(B, adv(n)..., basic...) -> (B, basic[:before]..., adv..., basic[before:]...)."""
    if perm is None:
        return r
    n, before = perm
    axes = list(range(r.ndim))
    adv = axes[1:1 + n]
    basic = axes[1 + n:]
    return r.transpose([0] + basic[:before] + adv + basic[before:])


def _getitem(x, idx):
    items = _expand_index(idx, x.shape)
    index, perm, _ = _physical_index(x._v, items, 'clip')
    if perm is None and not isinstance(index[0], np.ndarray):
        return _mk(x._v[index])
    return _mk(_move_adv(x._v[index], perm))


class _At:
    __slots__ = ('_x',)

    def __init__(self, x):
        self._x = x

    def __getitem__(self, idx):
        return _AtIndex(self._x, idx)


class _AtIndex:
    __slots__ = ('_x', '_idx')

    def __init__(self, x, idx):
        self._x = x
        self._idx = idx

    def get(self, **kw):
        return _getitem(self._x, self._idx)

    def set(self, values, **kw):
        return self._update(values, None)

    def add(self, values, **kw):
        return self._update(values, np.add)

    def subtract(self, values, **kw):
        return self._update(-(array(values) if isinstance(values, (list, tuple)) else _arr(values)),
                            np.add)

    def multiply(self, values, **kw):
        return self._update(values, np.multiply)

    mul = multiply

    def divide(self, values, **kw):
        if self._x.dtype.kind in 'biu':
            raise TypeError('x.at[].divide is not supported for integer arrays')
        return self._update(1 / _arr(values), np.multiply)

    def power(self, values, **kw):
        return self._update(values, np.power)

    def min(self, values, **kw):
        return self._update(values, np.minimum)

    def max(self, values, **kw):
        return self._update(values, np.maximum)

    def apply(self, func, **kw):
        raise _unsupported('x.at[].apply')

    def _update(self, values, ufunc):
        x = self._x
        items = _expand_index(self._idx, x.shape)
        if isinstance(values, (list, tuple)):
            values = array(values)
        vv, _ = _lift(values, 1, 'scatter')
        if vv.dtype != x.dtype:
            vv = vv.astype(x.dtype)
        index, perm, valid = _physical_index(x._v, items, 'drop')
        b = _batch(x._v, vv)
        if isinstance(index[0], np.ndarray) and index[0].shape[0] != 1:
            b = index[0].shape[0]
        out = np.array(_bcast_batch(x._v, b), order='C')
        if not isinstance(index[0], np.ndarray):
            target = out[index]
            vv = _align(vv, target.ndim - 1)
            out[index] = vv if ufunc is None else ufunc(target, vv)
            return _mk(out)
        index = (np.arange(b).reshape((b,) + (1,) * (index[0].ndim - 1)),) + index[1:]
        pos = np.arange(out.size).reshape(out.shape)[index]
        keep = None
        if valid is not None:
            keep = _move_adv(np.broadcast_to(_expand_valid(valid, pos.ndim), pos.shape), perm)
        pos = _move_adv(pos, perm)
        vals = np.broadcast_to(_align(vv, pos.ndim - 1), pos.shape)
        if keep is not None:
            pos, vals = pos[keep], vals[keep]
        else:
            pos, vals = pos.reshape(-1), vals.reshape(-1)
        flat = out.reshape(-1)
        if ufunc is None:
            flat[pos] = vals
        else:
            ufunc.at(flat, pos, vals)
        return _mk(out)


def _expand_valid(valid, ndim):
    return valid.reshape(valid.shape + (1,) * (ndim - valid.ndim))


# ----------------------------------------------------------------------------------------------
# jax.numpy: creation

def asarray(a, dtype=None, copy=None, order=None):
    return array(a, dtype=dtype)


def array(object, dtype=None, copy=True, order='K', ndmin=0):
    dt = _to_dtype(dtype)
    if isinstance(object, Array):
        v = object._v
        r = _mk(v.astype(dt) if dt is not None and v.dtype != dt else v, object._w and dt is None)
    elif isinstance(object, (list, tuple)) and _contains_array(object):
        r = stack([array(o) for o in object])
        if dt is not None:
            r = r.astype(dt)
    else:
        if isinstance(object, _ScalarType):
            raise TypeError('JAX cannot convert a dtype to an array')
        a = np.array(object)
        if a.dtype.kind in 'OUSV':
            raise TypeError('JAX does not support arrays of %s' % a.dtype)
        weak = dt is None and _is_weak(object)  # jnp.array(1) is weakly typed in JAX
        if dt is None:
            dt = _canon(a.dtype)
        r = _mk(a.astype(dt)[None], weak)
    while r.ndim < ndmin:
        r = _mk(r._v[:, None])
    return r


def _contains_array(seq):
    for o in seq:
        if isinstance(o, Array):
            return True
        if isinstance(o, (list, tuple)) and _contains_array(o):
            return True
    return False


def _filled(shape, fill, dtype):
    shape = _static_shape(shape)
    return _mk(np.full((1,) + shape, fill, dtype=dtype))


def zeros(shape, dtype=None):
    return _filled(shape, 0, _to_dtype(dtype) or _F32)


def ones(shape, dtype=None):
    return _filled(shape, 1, _to_dtype(dtype) or _F32)


def empty(shape, dtype=None):
    return zeros(shape, dtype)


def full(shape, fill_value, dtype=None):
    shape = _static_shape(shape)
    fv, weak = _lift(fill_value)
    dt = _to_dtype(dtype) or (_DEFAULT[_kind(fv.dtype)] if weak else fv.dtype)
    fv = _align(fv, len(shape))
    return _mk(np.array(np.broadcast_to(fv, (fv.shape[0],) + shape), dtype=dt),
               weak and dtype is None)


def zeros_like(a, dtype=None, shape=None):
    a = _arr(a)
    return _filled(a.shape if shape is None else shape, 0, _to_dtype(dtype) or a.dtype)


def ones_like(a, dtype=None, shape=None):
    a = _arr(a)
    return _filled(a.shape if shape is None else shape, 1, _to_dtype(dtype) or a.dtype)


def full_like(a, fill_value, dtype=None, shape=None):
    a = _arr(a)
    return full(a.shape if shape is None else shape, fill_value, dtype or a.dtype)


empty_like = zeros_like


def arange(start, stop=None, step=None, dtype=None):
    args = [start, stop, step]
    for name, x in zip(('start', 'stop', 'step'), args):
        if isinstance(x, Array) and x._t:
            raise ConcretizationTypeError(
                'Abstract tracer value encountered where concrete value is expected: traced '
                'array with shape %s.\nIt arose in the jnp.arange argument `%s`.'
                % (_shape_str(x), name) + _see(ConcretizationTypeError))
    args = [x.item() if isinstance(x, Array) else x for x in args]
    start, stop, step = args
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    a = np.arange(start, stop, step)
    dt = _to_dtype(dtype) or _canon(a.dtype)
    return _mk(a.astype(dt)[None])


def linspace(start, stop, num=50, endpoint=True, dtype=None):
    # start and stop may be traced (num may not), as in JAX
    num = _static_int(num, 'num')
    lo, hi = _lift(start)[0].astype(np.float64), _lift(stop)[0].astype(np.float64)
    div = (num - 1) if endpoint else num
    steps = np.arange(num, dtype=np.float64) / (div if div > 0 else 1)
    a = lo[:, None] + (hi - lo)[:, None] * steps[None, :]
    if endpoint and num > 1:
        a[:, -1] = hi
    return _mk(a.astype(_to_dtype(dtype) or _F32))


def eye(N, M=None, k=0, dtype=None):
    return _mk(np.eye(N, M, k, dtype=_to_dtype(dtype) or _F32)[None])


def identity(n, dtype=None):
    return eye(n, dtype=dtype)


def indices(dimensions, dtype=None):
    return _mk(np.indices(_static_shape(dimensions), dtype=_to_dtype(dtype) or _I32)[None])


def meshgrid(*xs, indexing='xy', **kw):
    arrs = [_arr(x) for x in xs]
    if builtins_any(a._t and a._v.shape[0] != 1 for a in arrs):
        raise _unsupported('jnp.meshgrid of batched (vmapped) arrays')
    grids = np.meshgrid(*[a._v[0] for a in arrs], indexing=indexing)
    return [_mk(g[None]) for g in grids]


# ----------------------------------------------------------------------------------------------
# jax.numpy: elementwise

def _named(g, name):
    """A factory-made function under its API name (its frames name it in error messages)."""
    g.__code__ = g.__code__.replace(co_name=name)
    g.__name__ = g.__qualname__ = name
    return g


def _unary(f, to_float=False):
    def g(x, *args, **kw):
        v = _arr(x)._v
        if to_float and v.dtype.kind in 'biu':
            v = v.astype(_F32)
        r = f(v, *args, **kw)
        return _mk(r.astype(_canon(r.dtype), copy=False))
    return _named(g, f.__name__)


abs = absolute = _unary(np.abs)
negative = _unary(np.negative)
sign = _unary(np.sign)
square = _unary(np.square)
sqrt = _unary(np.sqrt, True)
exp = _unary(np.exp, True)
log = _unary(np.log, True)
log1p = _unary(np.log1p, True)
log2 = _unary(np.log2, True)
log10 = _unary(np.log10, True)
expm1 = _unary(np.expm1, True)
tanh = _unary(np.tanh, True)
sinh = _unary(np.sinh, True)
cosh = _unary(np.cosh, True)
sin = _unary(np.sin, True)
cos = _unary(np.cos, True)
tan = _unary(np.tan, True)
arctan = _unary(np.arctan, True)
arcsin = _unary(np.arcsin, True)
arccos = _unary(np.arccos, True)


def _int_preserving(f):
    # jnp.floor/ceil/trunc keep integer and bool dtypes (JAX >= 0.4.31; before, they promoted
    # to float32 like numpy)
    def g(x):
        a = _arr(x)
        if a.dtype.kind in 'biu':
            return _mk(a._v)
        return _mk(f(a._v))
    return _named(g, f.__name__)


floor = _int_preserving(np.floor)
ceil = _int_preserving(np.ceil)
trunc = _int_preserving(np.trunc)
rint = _unary(np.rint, True)
isnan = _unary(np.isnan)
isinf = _unary(np.isinf)
isfinite = _unary(np.isfinite)
reciprocal = _unary(np.reciprocal, True)


def round(a, decimals=0, out=None):
    a = _arr(a)
    return _mk(np.round(a._v, decimals))


around = round_ = round


def _bin(f, kind='arith'):
    def g(x, y, *rest, **kw):
        return _binop(f, x, y, kind)
    return _named(g, f.__name__.lstrip('_'))


add = _bin(np.add)
subtract = _bin(np.subtract)
multiply = _bin(np.multiply)
divide = true_divide = _bin(np.true_divide, 'div')
floor_divide = _bin(np.floor_divide)
mod = remainder = _bin(np.remainder)
power = pow = _bin(_power)
maximum = _bin(np.maximum)
minimum = _bin(np.minimum)
fmax = _bin(np.fmax)
fmin = _bin(np.fmin)
bitwise_and = _bin(np.bitwise_and)
bitwise_or = _bin(np.bitwise_or)
bitwise_xor = _bin(np.bitwise_xor)
left_shift = _bin(np.left_shift)
right_shift = _bin(np.right_shift)
equal = _bin(np.equal, 'cmp')
not_equal = _bin(np.not_equal, 'cmp')
greater = _bin(np.greater, 'cmp')
greater_equal = _bin(np.greater_equal, 'cmp')
less = _bin(np.less, 'cmp')
less_equal = _bin(np.less_equal, 'cmp')
arctan2 = _bin(np.arctan2, 'div')
hypot = _bin(np.hypot, 'div')


def logaddexp(x1, x2):
    (a, b), dt = _operands(x1, x2)
    if dt.kind in 'biu':
        a, b = a.astype(_F32), b.astype(_F32)
    return _mk(np.logaddexp(a, b))


def bitwise_not(x):
    return ~_arr(x)


invert = bitwise_not


def _as_bool(v):
    return v if v.dtype == _BOOL else v != 0


def logical_and(x, y):
    (a, b), _ = _operands(x, y)
    return _mk(np.logical_and(a, b))


def logical_or(x, y):
    (a, b), _ = _operands(x, y)
    return _mk(np.logical_or(a, b))


def logical_xor(x, y):
    (a, b), _ = _operands(x, y)
    return _mk(np.logical_xor(a, b))


def logical_not(x):
    return _mk(np.logical_not(_lift(x)[0]))


def where(condition, x=None, y=None, *, size=None, fill_value=None):
    if x is None and y is None:
        return nonzero(condition, size=size, fill_value=fill_value, _name='jnp.where')
    if x is None or y is None:
        raise ValueError('Either both or neither of the x and y arguments should be provided '
                         'to jax.numpy.where, got %s and %s.' % (x, y))
    c = _lift(condition)[0]
    (xv, yv), _ = _operands(x, y)
    n = builtins_max(c.ndim, xv.ndim) - 1
    return _mk(np.where(_as_bool(_align(c, n)), _align(xv, n), _align(yv, n)),
               _is_weak(x) and _is_weak(y))


def select(condlist, choicelist, default=0):
    out = default
    for c, v in reversed(list(zip(condlist, choicelist))):
        out = where(c, v, out)
    return _arr(out)


def clip(a, a_min=None, a_max=None, *, min=None, max=None):
    lo = a_min if a_min is not None else min
    hi = a_max if a_max is not None else max
    r = _arr(a)
    if lo is not None:
        r = maximum(r, lo)
    if hi is not None:
        r = minimum(r, hi)
    return r


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    x = _arr(x)
    return _mk(np.nan_to_num(x._v, nan=nan, posinf=posinf, neginf=neginf))


def isin(element, test_elements, assume_unique=False, invert=False):
    e = _arr(element)
    t = _arr(test_elements, 1)
    tv = t._v.reshape(t._v.shape[0], -1)
    ev = e._v
    tv = tv.reshape((tv.shape[0],) + (1,) * e.ndim + (tv.shape[1],))
    r = (ev[..., None] == tv).any(-1)
    return _mk(~r if invert else r)


# ----------------------------------------------------------------------------------------------
# jax.numpy: reductions

def _reduce(f, a, axis, keepdims, dtype=None):
    a = _arr(a)
    r = f(a._v, axis=_phys_axis(axis, a.ndim), keepdims=keepdims)
    r = np.asarray(r)
    dt = dtype or _canon(r.dtype)
    return _mk(r.astype(dt, copy=False))


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    if where is not None or initial is not None:
        raise _unsupported('jnp.sum(where=/initial=)')
    a = _arr(a)
    dt = _to_dtype(dtype)
    axes = _phys_axis(axis, a.ndim)
    if a.dtype == _BOOL and dt is None:
        # counting tiles (jnp.sum(m == KEY)) is most of what rewards do: summing the booleans'
        # bytes into int32 is about twice as fast as numpy's bool sum
        r = a._v.view(np.uint8).sum(axis=axes, dtype=np.int32, keepdims=keepdims)
        return _mk(np.asarray(r))
    v = a._v if dt is None else a._v.astype(dt)
    r = np.asarray(np.sum(v, axis=axes, keepdims=keepdims))
    return _mk(r.astype(dt or _canon(r.dtype), copy=False))


def prod(a, axis=None, dtype=None, out=None, keepdims=False):
    return _reduce(np.prod, a, axis, keepdims, _to_dtype(dtype))


def mean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    a = _arr(a)
    v = a._v if a.dtype.kind in 'fc' else a._v.astype(_F32)
    return _reduce(np.mean, Array(v, a._t), axis, keepdims)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    a = _arr(a)
    v = a._v if a.dtype.kind in 'fc' else a._v.astype(_F32)
    return _mk(np.std(v, axis=_phys_axis(axis, a.ndim), ddof=ddof, keepdims=keepdims).astype(v.dtype))


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    a = _arr(a)
    v = a._v if a.dtype.kind in 'fc' else a._v.astype(_F32)
    return _mk(np.var(v, axis=_phys_axis(axis, a.ndim), ddof=ddof, keepdims=keepdims).astype(v.dtype))


def _minmax(f, name):
    def g(a, axis=None, out=None, keepdims=False, initial=None, where=None):
        a = _arr(a)
        if a.size == 0 and initial is None:
            raise ValueError('zero-size array to reduction operation %s which has no identity'
                             % name)
        if where is not None:
            raise _unsupported('jnp.%s(where=)' % name)
        r = f(a._v, axis=_phys_axis(axis, a.ndim), keepdims=keepdims)
        if initial is not None:
            r = (np.maximum if name == 'max' else np.minimum)(r, initial)
        return _mk(np.asarray(r))
    return _named(g, name)


max = amax = _minmax(np.amax, 'max')
min = amin = _minmax(np.amin, 'min')


def any(a, axis=None, out=None, keepdims=False):
    return _reduce(np.any, a, axis, keepdims)


def all(a, axis=None, out=None, keepdims=False):
    return _reduce(np.all, a, axis, keepdims)


def count_nonzero(a, axis=None, keepdims=False):
    a = _arr(a)
    return _mk(np.asarray(np.count_nonzero(a._v, axis=_phys_axis(axis, a.ndim),
                                           keepdims=keepdims)).astype(_I32))


def _argext(f):
    def g(a, axis=None, out=None, keepdims=False):
        a = _arr(a)
        if axis is None:
            v = a._v.reshape(a._v.shape[0], -1)
            r = f(v, axis=1)
            if keepdims:
                r = r.reshape((r.shape[0],) + (1,) * a.ndim)
        else:
            r = f(a._v, axis=_phys_axis(axis, a.ndim), keepdims=keepdims)
        return _mk(np.asarray(r).astype(_I32))
    return _named(g, f.__name__)


argmax = _argext(np.argmax)
argmin = _argext(np.argmin)


def cumsum(a, axis=None, dtype=None):
    a = _arr(a)
    if axis is None:
        v = a._v.reshape(a._v.shape[0], -1)
        r = np.cumsum(v, axis=1)
    else:
        r = np.cumsum(a._v, axis=_phys_axis(axis, a.ndim))
    return _mk(r.astype(_to_dtype(dtype) or _canon(r.dtype)))


def cumprod(a, axis=None, dtype=None):
    a = _arr(a)
    if axis is None:
        r = np.cumprod(a._v.reshape(a._v.shape[0], -1), axis=1)
    else:
        r = np.cumprod(a._v, axis=_phys_axis(axis, a.ndim))
    return _mk(r.astype(_to_dtype(dtype) or _canon(r.dtype)))


def _nanreduce(f, name, to_float):
    def g(a, axis=None, keepdims=False, **kw):
        a = _arr(a)
        v = a._v.astype(_F32) if to_float and a.dtype.kind in 'biu' else a._v
        r = np.asarray(f(v, axis=_phys_axis(axis, a.ndim), keepdims=keepdims))
        return _mk(r.astype(_canon(r.dtype), copy=False))
    return _named(g, name)


nansum = _nanreduce(np.nansum, 'nansum', False)
nanmean = _nanreduce(np.nanmean, 'nanmean', True)
nanmax = _nanreduce(np.nanmax, 'nanmax', False)
nanmin = _nanreduce(np.nanmin, 'nanmin', False)
median = _nanreduce(np.median, 'median', True)


def einsum(subscripts, *operands, **kw):
    if not isinstance(subscripts, str) or '...' in subscripts:
        raise _unsupported('jnp.einsum with ellipsis or without a subscripts string')
    ins, arrow, out = subscripts.replace(' ', '').partition('->')
    if not arrow:
        letters = sorted(set(c for c in ins if c.isalpha()), key=ins.index)
        out = ''.join(sorted(c for c in letters if ins.count(c) == 1))
    terms = ins.split(',')
    arrs = [_arr(o) for o in operands]
    if len(terms) != len(arrs):
        raise ValueError('einsum: %d operands for %d subscripts' % (len(arrs), len(terms)))
    vs, dt = _operands(*arrs)
    vs = [v.reshape(v.shape[:1] + a.shape) for v, a in zip(vs, arrs)]
    spec = ','.join('...' + t for t in terms) + '->...' + out
    r = np.einsum(spec, *vs)
    return _mk(np.asarray(r).astype(dt, copy=False))


def triu(m, k=0):
    m = _arr(m)
    mask = np.triu(np.ones(m.shape[-2:], bool), k)
    return _mk(np.where(mask, m._v, np.zeros((), m.dtype)))


def tril(m, k=0):
    m = _arr(m)
    mask = np.tril(np.ones(m.shape[-2:], bool), k)
    return _mk(np.where(mask, m._v, np.zeros((), m.dtype)))


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    if returned:
        raise _unsupported('jnp.average(returned=True)')
    if weights is None:
        return mean(a, axis=axis, keepdims=keepdims)
    a, w = _arr(a), _arr(weights, 2)
    if w.shape != a.shape:
        if axis is None or w.ndim != 1:
            raise _unsupported('jnp.average with weights of another shape than a, except 1-D '
                               'weights along axis')
        shp = [1] * a.ndim
        shp[axis] = w.shape[0]
        w = reshape(w, tuple(shp))
    af = a.astype(_F32) if a.dtype.kind in 'biu' else a
    return sum(af * w, axis=axis, keepdims=keepdims) / sum(broadcast_to(w, a.shape) * 1.0, axis=axis,
                                                         keepdims=keepdims)


def ptp(a, axis=None, keepdims=False):
    return subtract(max(a, axis=axis, keepdims=keepdims), min(a, axis=axis, keepdims=keepdims))


def diag(v, k=0):
    v = _arr(v)
    if v.ndim == 1:
        n = v.shape[0] + builtins_abs(k)
        out = np.zeros((v._v.shape[0], n, n), v.dtype)
        r = np.arange(v.shape[0])
        out[:, r + builtins_max(-k, 0), r + builtins_max(k, 0)] = v._v
        return _mk(out)
    if v.ndim == 2:
        return _mk(np.ascontiguousarray(np.diagonal(v._v, k, axis1=1, axis2=2)))
    raise ValueError('diag input must be 1d or 2d')


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    a = _arr(a)
    r = np.trace(a._v, offset, axis1=_phys_axis(axis1, a.ndim), axis2=_phys_axis(axis2, a.ndim))
    return _mk(np.asarray(r).astype(_to_dtype(dtype) or _canon(np.asarray(r).dtype)))


def take_along_axis(arr, indices, axis):
    a, i = _arr(arr), _arr(indices, 1)
    if axis is None:
        a, axis = ravel(a), 0
    if i.ndim != a.ndim:
        raise ValueError('indices and arr must have the same number of dimensions; %d vs. %d'
                         % (i.ndim, a.ndim))
    ax = _phys_axis(axis, a.ndim)
    n = a.shape[ax - 1]
    iv = i._v.astype(np.int64)
    iv = np.clip(np.where(iv < 0, iv + n, iv), 0, n - 1)
    b = _batch(a._v, iv)
    return _mk(np.take_along_axis(_bcast_batch(a._v, b), _bcast_batch(iv, b), axis=ax))


def array_equal(a1, a2, equal_nan=False):
    a1, a2 = _arr(a1), _arr(a2)
    if a1.shape != a2.shape:
        return _mk(np.zeros(1, bool))
    (x, y), _ = _operands(a1, a2)
    eq = x == y
    if equal_nan and x.dtype.kind in 'fc':
        eq |= np.isnan(x) & np.isnan(y)
    return _mk(eq.reshape(eq.shape[0], -1).all(1))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    (x, y), _ = _operands(a, b)
    r = np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return _mk(r.reshape(r.shape[0], -1).all(1))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    (x, y), _ = _operands(a, b)
    return _mk(np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan))


# ----------------------------------------------------------------------------------------------
# jax.numpy: shapes

def reshape(a, newshape=None, order='C', *, shape=None):
    a = _arr(a)
    s = _static_shape(shape if shape is not None else newshape)
    return _mk(a._v.reshape((a._v.shape[0],) + s))


def ravel(a, order='C'):
    a = _arr(a)
    return _mk(a._v.reshape(a._v.shape[0], -1))


def transpose(a, axes=None):
    a = _arr(a)
    if axes is None:
        axes = tuple(range(a.ndim))[::-1]
    return _mk(a._v.transpose((0,) + tuple(_phys_axis(x, a.ndim) for x in axes)))


def swapaxes(a, axis1, axis2):
    a = _arr(a)
    return _mk(np.swapaxes(a._v, _phys_axis(axis1, a.ndim), _phys_axis(axis2, a.ndim)))


def moveaxis(a, source, destination):
    a = _arr(a)
    return _mk(np.moveaxis(a._v, _phys_axis(source, a.ndim), _phys_axis(destination, a.ndim)))


def expand_dims(a, axis):
    a = _arr(a)
    n = a.ndim + (len(axis) if isinstance(axis, (tuple, list)) else 1)
    return _mk(np.expand_dims(a._v, _phys_axis(axis, n)))


def squeeze(a, axis=None):
    a = _arr(a)
    if axis is None:
        axis = tuple(i for i, s in enumerate(a.shape) if s == 1)
    return _mk(np.squeeze(a._v, _phys_axis(axis, a.ndim)))


def atleast_1d(a):
    a = _arr(a)
    return a if a.ndim >= 1 else reshape(a, (1,))


def atleast_2d(a):
    a = atleast_1d(a)
    return a if a.ndim >= 2 else reshape(a, (1,) + a.shape)


def broadcast_to(a, shape):
    a = _arr(a)
    s = _static_shape(shape)
    v = _align(a._v, len(s))
    return _mk(np.broadcast_to(v, (v.shape[0],) + s))


def _common(arrs):
    vs, dt = _operands(*arrs)
    b = _batch(*vs)
    return [_bcast_batch(v, b) for v in vs], dt


def concatenate(arrays, axis=0, dtype=None):
    arrs = [_arr(a) for a in arrays]
    nd = arrs[0].ndim
    if nd == 0:
        raise ValueError('Zero-dimensional arrays cannot be concatenated.')
    vs, _ = _common(arrs)
    vs = [v.reshape(v.shape[:1] + a.shape) for v, a in zip(vs, arrs)]
    if axis is None:
        vs = [v.reshape(v.shape[0], -1) for v in vs]
        axis, nd = 0, 1
    return _mk(np.concatenate(vs, axis=_phys_axis(axis, nd)))


def stack(arrays, axis=0, dtype=None):
    arrs = [_arr(a) for a in arrays]
    shapes = {a.shape for a in arrs}
    if len(shapes) != 1:
        raise ValueError('All input arrays must have the same shape.')
    vs, _ = _common(arrs)
    vs = [v.reshape(v.shape[:1] + a.shape) for v, a in zip(vs, arrs)]
    return _mk(np.stack(vs, axis=_phys_axis(axis, arrs[0].ndim + 1)))


def vstack(tup):
    return concatenate([atleast_2d(a) for a in tup], axis=0)


def hstack(tup):
    arrs = [atleast_1d(a) for a in tup]
    return concatenate(arrs, axis=0 if arrs[0].ndim == 1 else 1)


def column_stack(tup):
    arrs = [_arr(a) for a in tup]
    arrs = [reshape(a, (-1, 1)) if a.ndim < 2 else a for a in arrs]
    return concatenate(arrs, axis=1)


def tile(a, reps):
    a = _arr(a)
    reps = _static_shape(reps)
    nd = builtins_max(a.ndim, len(reps))
    v = _align(a._v, nd)
    reps = (1,) * (nd - len(reps)) + tuple(reps)
    return _mk(np.tile(v, (1,) + reps))


def repeat(a, repeats, axis=None, total_repeat_length=None):
    a = _arr(a)
    if isinstance(repeats, Array):
        if repeats._t:
            raise ConcretizationTypeError(
                'Abstract tracer value encountered where concrete value is expected: traced '
                'array with shape %s.\njnp.repeat with a traced `repeats` needs '
                'total_repeat_length.' % _shape_str(repeats) + _see(ConcretizationTypeError))
        repeats = np.asarray(repeats)
    if axis is None:
        return _mk(np.repeat(a._v.reshape(a._v.shape[0], -1), repeats, axis=1))
    return _mk(np.repeat(a._v, repeats, axis=_phys_axis(axis, a.ndim)))


def flip(m, axis=None):
    m = _arr(m)
    axes = _phys_axis(axis, m.ndim)
    if not isinstance(axes, tuple):
        axes = (axes,)
    return _mk(np.flip(m._v, axes) if axes else m._v)


def fliplr(m):
    return flip(m, 1)


def flipud(m):
    return flip(m, 0)


def rot90(m, k=1, axes=(0, 1)):
    m = _arr(m)
    return _mk(np.rot90(m._v, _static_int(k, 'k'),
                        (_phys_axis(axes[0], m.ndim), _phys_axis(axes[1], m.ndim))))


def roll(a, shift, axis=None):
    a = _arr(a)
    if isinstance(shift, Array) and shift._t:
        if shift.ndim:
            raise _unsupported('jnp.roll with a traced tuple of shifts')
        s = np.broadcast_to(shift._v, (_batch(a._v, shift._v),))
        v = _bcast_batch(a._v, s.shape[0])
        return _mk(np.stack([_roll1(v[i:i + 1], int(s[i]), axis, a.ndim)[0] for i in range(len(s))]))
    return _mk(_roll1(a._v, shift, axis, a.ndim))


def _roll1(v, shift, axis, ndim):
    if axis is None:
        return np.roll(v.reshape(v.shape[0], -1), shift, axis=1).reshape(v.shape)
    return np.roll(v, shift, axis=_phys_axis(axis, ndim))


def pad(array, pad_width, mode='constant', constant_values=0, **kw):
    a = _arr(array)
    if isinstance(pad_width, Array):
        if pad_width._t:
            raise ConcretizationTypeError(
                'Abstract tracer value encountered where concrete value is expected: traced '
                'array with shape %s.\nThe pad_width argument of jnp.pad must be static.'
                % _shape_str(pad_width) + _see(ConcretizationTypeError))
        pad_width = pad_width._v[0].tolist()
    pw = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (a.ndim, 2)).tolist()
    pw = [(0, 0)] + [tuple(p) for p in pw]
    if mode == 'constant':
        cv = constant_values
        if isinstance(cv, Array):
            if cv.ndim:
                raise _unsupported('jnp.pad with array constant_values')
            cvb = np.broadcast_to(cv._v.astype(a.dtype), (_batch(a._v, cv._v),))
            v = _bcast_batch(a._v, cvb.shape[0])
            out = np.empty((v.shape[0],) + tuple(s + p[0] + p[1] for s, p in zip(v.shape[1:], pw[1:])),
                           a.dtype)
            out[...] = cvb.reshape((-1,) + (1,) * a.ndim)
            out[tuple(slice(p[0], p[0] + s) for p, s in zip(pw, v.shape))] = v
            return _mk(out)
        return _mk(np.pad(a._v, pw, mode='constant', constant_values=cv))
    if mode in ('edge', 'reflect', 'symmetric', 'wrap', 'maximum', 'minimum', 'mean'):
        return _mk(np.pad(a._v, pw, mode=mode))
    raise _unsupported("jnp.pad(mode=%r)" % (mode,))


def diff(a, n=1, axis=-1, prepend=None, append=None):
    a = _arr(a)
    if prepend is not None or append is not None:
        parts = [a]
        if prepend is not None:
            p = _arr(prepend)
            if p.ndim == 0:
                shp = list(a.shape)
                shp[axis] = 1
                p = broadcast_to(p, tuple(shp))
            parts.insert(0, p)
        if append is not None:
            p = _arr(append)
            if p.ndim == 0:
                shp = list(a.shape)
                shp[axis] = 1
                p = broadcast_to(p, tuple(shp))
            parts.append(p)
        a = concatenate(parts, axis=axis)
    v = a._v
    ax = _phys_axis(axis, a.ndim)
    for _ in range(_static_int(n, 'n')):
        hi = [slice(None)] * v.ndim
        lo = [slice(None)] * v.ndim
        hi[ax] = slice(1, None)
        lo[ax] = slice(None, -1)
        if v.dtype == _BOOL:
            v = np.not_equal(v[tuple(hi)], v[tuple(lo)])
        else:
            v = v[tuple(hi)] - v[tuple(lo)]
    return _mk(v)


def kron(a, b):
    (x, y), _ = _operands(a, b)
    bsz = _batch(x, y)
    # x[..., i, ...] * y[..., j, ...] interleaved, then merged pairwise (operands of different
    # rank were given the same rank with leading 1s, as numpy's kron does)
    xs = x.reshape(x.shape[:1] + tuple(d for s in x.shape[1:] for d in (s, 1)))
    ys = y.reshape(y.shape[:1] + tuple(d for s in y.shape[1:] for d in (1, s)))
    r = xs * ys
    return _mk(r.reshape((bsz,) + tuple(p * q for p, q in zip(x.shape[1:], y.shape[1:]))))


def outer(a, b):
    a, b = ravel(a), ravel(b)
    return multiply(a[:, None], b[None, :])


def matmul(a, b):
    a, b = _arr(a), _arr(b)
    (x, y), dt = _operands(a, b)
    x = x.reshape(x.shape[:1] + a.shape)
    y = y.reshape(y.shape[:1] + b.shape)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError('matmul: operands must not be scalars')
    if a.ndim == 1 and b.ndim == 1:
        r = (x * y).sum(-1)
    elif b.ndim == 1:
        r = np.matmul(x, y[..., None])[..., 0]
    elif a.ndim == 1:
        r = np.matmul(x[:, None, :], y)[:, 0]
    else:
        r = np.matmul(x, y)
    return _mk(r.astype(dt, copy=False))


def dot(a, b):
    a, b = _arr(a), _arr(b)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    if a.ndim <= 2 and b.ndim <= 2:
        return matmul(a, b)
    raise _unsupported('jnp.dot of arrays with more than 2 dimensions')


def vdot(a, b):
    return dot(ravel(a), ravel(b))


def inner(a, b):
    a, b = _arr(a), _arr(b)
    if a.ndim == 1 and b.ndim == 1:
        return dot(a, b)
    raise _unsupported('jnp.inner of arrays with more than 1 dimension')


def take(a, indices, axis=None, mode=None, fill_value=None):
    a = _arr(a)
    if axis is None:
        a = ravel(a)
        axis = 0
    idx = [slice(None)] * a.ndim
    idx[axis if axis >= 0 else axis + a.ndim] = _arr(indices)
    return _getitem(a, tuple(idx))


def sort(a, axis=-1, kind=None, order=None, stable=True, descending=False):
    a = _arr(a)
    if axis is None:
        a, axis = ravel(a), 0
    r = np.sort(a._v, axis=_phys_axis(axis, a.ndim), kind='stable')
    if descending:
        r = np.flip(r, _phys_axis(axis, a.ndim))
    return _mk(r)


def argsort(a, axis=-1, kind=None, order=None, stable=True, descending=False):
    a = _arr(a)
    if axis is None:
        a, axis = ravel(a), 0
    ax = _phys_axis(axis, a.ndim)
    v = -a._v if descending and a.dtype != _BOOL else (~a._v if descending else a._v)
    return _mk(np.argsort(v, axis=ax, kind='stable').astype(_I32))


# ----------------------------------------------------------------------------------------------
# jax.numpy: value-dependent shapes (need size=)

def _need_size(name, a):
    raise ConcretizationTypeError(
        'Abstract tracer value encountered where concrete value is expected: traced array with '
        'shape %s.\nThe size argument of %s must be statically specified to use %s within JAX '
        'transformations.' % (_shape_str(a), name, name) + _see(ConcretizationTypeError))


def _first_true(mask, size):
    """For each batch row of a 2-D bool mask: the positions of its first `size` True entries
    (in order) and which of those `size` slots are filled."""
    n = mask.shape[1]
    if size == 1:
        return np.argmax(mask, axis=1)[:, None], mask.any(axis=1)[:, None]
    if size <= 16:
        # a few argmax passes over the running count beat a full sort of every row
        c = np.cumsum(mask, axis=1, dtype=np.int32)
        pos = np.stack([np.argmax(c > j, axis=1) for j in range(size)], axis=1)
        return pos, c[:, -1:] > np.arange(size)[None, :]
    order = np.argsort(~mask, axis=1, kind='stable')
    if size > n:
        order = np.concatenate([order, np.zeros((mask.shape[0], size - n), order.dtype)], axis=1)
    pos = order[:, :size]
    filled = np.arange(size)[None, :] < mask.sum(1)[:, None]
    return pos, filled


def nonzero(a, *, size=None, fill_value=None, _name='jnp.nonzero'):
    a = _arr(a)
    if size is None:
        if a._t:
            _need_size(_name, a)
        return tuple(_mk(i.astype(_I32)[None]) for i in np.nonzero(a._v[0]))
    size = _static_int(size, 'size')
    if a.ndim == 0:
        a = reshape(a, (1,))
    mask = a._v.reshape(a._v.shape[0], -1) != 0
    pos, filled = _first_true(mask, size)
    coords = np.unravel_index(pos, a.shape) if a.ndim > 1 else (pos,)
    out = []
    for k, c in enumerate(coords):
        fv = 0 if fill_value is None else (fill_value[k] if isinstance(fill_value, (tuple, list))
                                           else fill_value)
        if isinstance(fv, Array):
            fv = fv._v.reshape(-1, 1) if fv._v.size > 1 else fv._v.reshape(-1)[0]
        out.append(_mk(np.where(filled, c, fv).astype(_I32)))
    return tuple(out)


def flatnonzero(a, *, size=None, fill_value=None):
    return nonzero(ravel(a), size=size, fill_value=fill_value, _name='jnp.flatnonzero')[0]


def argwhere(a, *, size=None, fill_value=None):
    a = _arr(a)
    if size is None and a._t:
        _need_size('jnp.argwhere', a)
    if a.ndim == 0:
        a = reshape(a, (1,))
    cols = nonzero(a, size=size, fill_value=fill_value, _name='jnp.argwhere')
    return stack(cols, axis=1) if size is not None else _mk(np.argwhere(a._v[0]).astype(_I32)[None])


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           size=None, fill_value=None, equal_nan=True):
    a = _arr(ar)
    if axis is not None:
        raise _unsupported('jnp.unique(axis=...)')
    if return_index or return_inverse:
        raise _unsupported('jnp.unique(return_index=/return_inverse=)')
    if size is None:
        if a._t:
            _need_size('jnp.unique', a)
        r = np.unique(a._v[0], return_counts=return_counts)
        if return_counts:
            return _mk(r[0][None]), _mk(r[1].astype(_I32)[None])
        return _mk(r[None])
    size = _static_int(size, 'size')
    s = np.sort(a._v.reshape(a._v.shape[0], -1), axis=1)
    n = s.shape[1]
    first = np.ones(s.shape, bool)
    first[:, 1:] = s[:, 1:] != s[:, :-1]
    pos, filled = _first_true(first, size)
    rows = np.arange(s.shape[0])[:, None]
    vals = s[rows, np.minimum(pos, n - 1)]
    fv = s[:, :1] if fill_value is None else _lift(fill_value)[0].reshape(-1, 1)
    vals = np.where(filled, vals, fv).astype(s.dtype)
    if not return_counts:
        return _mk(vals)
    k = first.sum(1)[:, None]
    nxt = np.concatenate([pos[:, 1:], np.full((pos.shape[0], 1), n)], axis=1)
    j = np.arange(size)[None, :]
    end = np.where(j + 1 < k, nxt, n)
    counts = np.where(filled, end - pos, 0).astype(_I32)
    return _mk(vals), _mk(counts)


def bincount(x, weights=None, minlength=0, *, length=None):
    x = _arr(x)
    if length is None:
        if x._t:
            _need_size('jnp.bincount (length)', x)
        length = int(x._v.max()) + 1 if x.size else 0
        length = builtins_max(length, minlength)
    v = x._v.reshape(x._v.shape[0], -1)
    oh = (v[:, :, None] == np.arange(length)[None, None, :])
    if weights is None:
        return _mk(oh.sum(1).astype(_I32))
    w = _bcast_batch(_arr(weights)._v.reshape(-1, v.shape[1]), v.shape[0])
    return _mk((oh * w[:, :, None]).sum(1).astype(_canon(w.dtype)))


# ----------------------------------------------------------------------------------------------
# Convolutions

def _conv_region(in_shape, k_shape, mode):
    """(start, size) per axis of the part of the full convolution that `mode` keeps: 'same' is
    centred on the full output and has the first input's size, 'valid' needs no padding."""
    if mode == 'full':
        return [(0, s + t - 1) for s, t in zip(in_shape, k_shape)]
    if mode == 'same':
        return [((t - 1) // 2, s) for s, t in zip(in_shape, k_shape)]
    if mode == 'valid':
        if not (builtins_all(s >= t for s, t in zip(in_shape, k_shape))
                or builtins_all(s <= t for s, t in zip(in_shape, k_shape))):
            raise ValueError('One input must be smaller than the other in every dimension.')
        return [(builtins_min(s, t) - 1, builtins_max(s, t) - builtins_min(s, t) + 1)
                for s, t in zip(in_shape, k_shape)]
    raise ValueError("mode must be one of ['full', 'same', 'valid']")


def _conv(x, w, region, dt):
    """The `region` of the full n-D convolution of batched x (B, s...) with batched kernel w
    (B', t...), computed in dt: x zero-padded once, then one shifted multiply-add per kernel entry
    straight into the output (kernels are small; a constant kernel skips its zeros)."""
    nd = x.ndim - 1
    ks = w.shape[1:]
    xp = np.zeros((x.shape[0],) + tuple(s + 2 * (t - 1) for s, t in zip(x.shape[1:], ks)), dt)
    xp[(slice(None),) + tuple(slice(t - 1, t - 1 + s) for s, t in zip(x.shape[1:], ks))] = x
    out = np.zeros((_batch(x, w),) + tuple(size for _, size in region), dt)
    for off in np.ndindex(*ks):
        src = xp[(slice(None),) + tuple(slice(st + t - 1 - o, st + t - 1 - o + size)
                                        for (st, size), t, o in zip(region, ks, off))]
        if w.shape[0] == 1:
            wv = w[(0,) + off]
            if wv == 0:
                continue
            out += src if wv == 1 else src * wv
        else:
            out += src * w[(slice(None),) + off].reshape((w.shape[0],) + (1,) * nd)
    return out


def _convolve_nd(a, k, mode, flip_kernel=True):
    """Convolution (or, flip_kernel=False, correlation) of Arrays of equal rank. As in JAX, the
    result is floating point: bool and integer inputs are promoted to float32."""
    if a.size == 0 or k.size == 0:
        raise ValueError('zero-size arrays not supported in convolutions, got shapes %s and %s.'
                         % (a.shape, k.shape))
    (x, w), dt = _operands(a, k)
    if dt.kind in 'biu':
        dt = _F32
        w = w.astype(_F32)
    if not flip_kernel:
        w = np.flip(w, tuple(range(1, w.ndim)))
    return _mk(_conv(x, w, _conv_region(a.shape, k.shape, mode), dt))


def _one_d(name, a, v):
    a, v = _arr(a), _arr(v, 1)
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError('%s() only support 1-dimensional inputs.' % name)
    if a.shape[0] == 0 or v.shape[0] == 0:
        raise ValueError('%s: inputs cannot be empty, got shapes %s and %s.'
                         % (name, a.shape, v.shape))
    return a, v


def convolve(a, v, mode='full', *, precision=None, preferred_element_type=None):
    a, v = _one_d('convolve', a, v)
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    return _convolve_nd(a, v, mode)


def correlate(a, v, mode='valid', *, precision=None, preferred_element_type=None):
    a, v = _one_d('correlate', a, v)
    if v.shape[0] > a.shape[0]:  # numpy's rule: swap, then reverse the output
        return flip(_convolve_nd(v, a, mode, flip_kernel=False))
    return _convolve_nd(a, v, mode, flip_kernel=False)


def _two_d(name, in1, in2, boundary, fillvalue):
    if boundary != 'fill' or fillvalue != 0:
        raise NotImplementedError("%s() only supports boundary='fill', fillvalue=0" % name)
    a, k = _arr(in1), _arr(in2, 1)
    if a.ndim != 2 or k.ndim != 2:
        raise ValueError('%s() only supports 2-dimensional inputs.' % name)
    return a, k


def _signal_convolve2d(in1, in2, mode='full', boundary='fill', fillvalue=0, precision=None):
    a, k = _two_d('convolve2d', in1, in2, boundary, fillvalue)
    return _convolve_nd(a, k, mode)


def _signal_correlate2d(in1, in2, mode='full', boundary='fill', fillvalue=0, precision=None):
    a, k = _two_d('correlate2d', in1, in2, boundary, fillvalue)
    if mode == 'same':
        # jax.scipy.signal.correlate2d centres 'same' on the flipped problem: for even kernel
        # sizes one cell later than correlate(..., 'same') does.
        return flip(_convolve_nd(flip(a), k, 'same'))
    return _convolve_nd(a, k, mode, flip_kernel=False)


def _nd(in1, in2):
    a, k = _arr(in1), _arr(in2, 1)
    if a.ndim != k.ndim:
        raise ValueError('in1 and in2 must have the same number of dimensions')
    return a, k


def _signal_convolve(in1, in2, mode='full', method='auto', precision=None):
    return _convolve_nd(*_nd(in1, in2), mode)


def _signal_correlate(in1, in2, mode='full', method='auto', precision=None):
    return _convolve_nd(*_nd(in1, in2), mode, flip_kernel=False)


# ----------------------------------------------------------------------------------------------
# Pytrees

def tree_map(f, tree, *rest, is_leaf=None):
    if isinstance(tree, dict):
        return {k: tree_map(f, tree[k], *[r[k] for r in rest]) for k in tree}
    if isinstance(tree, (list, tuple)) and not (is_leaf and is_leaf(tree)):
        items = [tree_map(f, t, *[r[i] for r in rest]) for i, t in enumerate(tree)]
        return type(tree)(items) if not hasattr(tree, '_fields') else type(tree)(*items)
    if tree is None:
        return None
    return f(tree, *rest)


def tree_leaves(tree):
    out = []
    tree_map(out.append, tree)
    return out


# ----------------------------------------------------------------------------------------------
# jax: jit and vmap

def _to_traced(x, batch_axis=None):
    if isinstance(x, Array):
        v = x._v if batch_axis is None else np.moveaxis(x._v[0], batch_axis, 0)
        return Array(v, True, x._w)
    if isinstance(x, (bool, int, float, complex, np.ndarray, np.generic)):
        a = np.asarray(x)
        a = a.astype(_canon(a.dtype), copy=False)
        # Python scalars passed to jit are weakly typed, as in JAX
        return Array(a[None] if batch_axis is None else np.moveaxis(a, batch_axis, 0), True,
                     _is_weak(x))
    return x


def _to_concrete(x):
    return Array(x._v, False, x._w) if isinstance(x, Array) else x


def jit(fun=None, *, static_argnums=(), static_argnames=(), donate_argnums=(), **kw):
    if fun is None:
        return functools.partial(jit, static_argnums=static_argnums,
                                 static_argnames=static_argnames)
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)
    if isinstance(static_argnames, str):
        static_argnames = (static_argnames,)

    @functools.wraps(fun)
    def jitted(*args, **kwargs):
        if _DEPTH[0] > 0:
            return fun(*args, **kwargs)
        args = [a if i in static_argnums else tree_map(_to_traced, a) for i, a in enumerate(args)]
        kwargs = {k: v if k in static_argnames else tree_map(_to_traced, v)
                  for k, v in kwargs.items()}
        with _Tracing():
            out = fun(*args, **kwargs)
        return tree_map(_to_concrete, out)
    return jitted


def _axis_tree(in_axes, args):
    if isinstance(in_axes, (list, tuple)):
        if len(in_axes) != len(args):
            raise ValueError('vmap in_axes must be an int, None, or a tuple of entries '
                             'corresponding to the positional arguments passed to the function, '
                             'but got len(in_axes)=%d, len(args)=%d' % (len(in_axes), len(args)))
        return list(in_axes)
    return [in_axes] * len(args)


def vmap(fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None, **kw):
    @functools.wraps(fun)
    def mapped(*args):
        axes = _axis_tree(in_axes, args)
        if _BATCHED[0] > 0:
            return _vmap_loop(fun, args, axes, out_axes)
        return _vmap_batch(fun, args, axes, out_axes)
    return mapped


def _leaf_axes(arg, ax):
    """(leaf, axis) pairs of one argument (axis None = not mapped)."""
    pairs = []
    if isinstance(ax, dict):
        tree_map(lambda l, a: pairs.append((l, a)), arg, ax)
    else:
        tree_map(lambda l: pairs.append((l, ax)), arg)
    return pairs


def _mapped_size(args, axes):
    n = None
    for arg, ax in zip(args, axes):
        for leaf, a in _leaf_axes(arg, ax):
            if a is None or leaf is None:
                continue
            shape = leaf.shape if isinstance(leaf, Array) else np.shape(leaf)
            if not shape:
                raise ValueError('vmap was requested to map its argument along axis %d, which '
                                 'implies that its rank should be at least %d, but is only 0 '
                                 '(its shape is ())' % (a, a + 1))
            s = shape[a]
            if n is not None and s != n:
                raise ValueError('vmap got inconsistent sizes for array axes to be mapped: %d '
                                 'and %d' % (n, s))
            n = s
    if n is None:
        raise ValueError('vmap must have at least one non-None value in in_axes')
    return n


def _vmap_batch(fun, args, axes, out_axes):
    n = _mapped_size(args, axes)

    def conv(arg, ax):
        if isinstance(ax, dict):
            return tree_map(lambda l, a: _to_traced(l, a), arg, ax)
        return tree_map(lambda l: _to_traced(l, ax), arg)
    targs = [conv(a, ax) for a, ax in zip(args, axes)]
    _BATCHED[0] += 1
    try:
        with _Tracing():
            out = fun(*targs)
    finally:
        _BATCHED[0] -= 1

    def unbatch(x):
        x = x if isinstance(x, Array) else asarray(x)
        v = _bcast_batch(x._v, n)
        if out_axes not in (0, None):
            v = np.moveaxis(v, 0, out_axes)
        return Array(np.ascontiguousarray(v)[None], _DEPTH[0] > 0)
    return tree_map(unbatch, out)


def _vmap_loop(fun, args, axes, out_axes):
    n = _mapped_size(args, axes)
    outs = []
    for i in range(n):
        def pick(leaf, a):
            if a is None or leaf is None:
                return leaf
            leaf = _arr(leaf)
            return _getitem(leaf, (slice(None),) * a + (i,))

        def conv(arg, ax):
            if isinstance(ax, dict):
                return tree_map(pick, arg, ax)
            return tree_map(lambda l: pick(l, ax), arg)
        outs.append(fun(*[conv(a, ax) for a, ax in zip(args, axes)]))
    return tree_map(lambda *xs: stack(xs, axis=out_axes or 0), outs[0], *outs[1:])


# ----------------------------------------------------------------------------------------------
# jax.lax

def _aval(x):
    """(shape, dtype, weakly typed?) of a pytree leaf, as JAX's tracing sees it."""
    v, weak = _lift(x)
    return v.shape[1:], _canon(v.dtype), weak


def _aval_str(shape, dtype):
    return 'ShapedArray(%s[%s])' % (dtype.name, ','.join(str(d) for d in shape))


def _same_structure(what, a, b):
    if tree_map(lambda _: '*', a) != tree_map(lambda _: '*', b):
        raise TypeError('%s must have same type structure, got %r and %r.' % (what, a, b))


def _tree_select(pred, t, f):
    """where(pred, t, f) over pytrees, after lax.cond's check: both branches' outputs must have the
    same structure, shapes and dtypes (weak types are not promoted here, as in JAX)."""
    _same_structure('true_fun and false_fun output', t, f)
    for a, b in zip(tree_leaves(t), tree_leaves(f)):
        sa, da, _ = _aval(a)
        sb, db, _ = _aval(b)
        if sa != sb or da != db:
            raise TypeError('true_fun and false_fun output must have identical types, got\n%s\nand\n'
                            '%s.' % (_aval_str(sa, da), _aval_str(sb, db)))
    return tree_map(lambda a, b: where(pred, a, b), t, f)


def _carry(what, init, out):
    """A loop body is traced once, so its output carry must have the input carry's types. A weakly
    typed input (a Python scalar) is promoted to the output's dtype when that is its promotion, as
    JAX does. Returns the carry to start with (promoted where needed) or None if unchanged."""
    _same_structure(what, out, init)
    promote = False
    for a, b in zip(tree_leaves(init), tree_leaves(out)):
        sa, da, wa = _aval(a)
        sb, db, _ = _aval(b)
        if sa == sb and da == db:
            continue
        if sa == sb and wa and _result_dtype(da, True, db, False) == db:
            promote = True
            continue
        raise TypeError('%s must have identical types, got\n%s\nand\n%s.'
                        % (what, _aval_str(sb, db), _aval_str(sa, da)))
    if not promote:
        return None
    return tree_map(lambda a, b: a if isinstance(a, Array) else asarray(a, dtype=_aval(b)[1]),
                    init, out)


def _pred(pred):
    p = _arr(pred)
    if p.ndim != 0:
        raise TypeError('Pred must be a scalar, got %s of shape %s.' % (p, p.shape))
    return p


def cond(pred, true_fun, false_fun, *operands, operand=None):
    if operand is not None:
        operands = operands + (operand,)
    p = _pred(pred)
    # Both branches are traced, as under jit; under vmap a batched predicate selects per item.
    t = true_fun(*operands)
    f = false_fun(*operands)
    if p.dtype != _BOOL:
        p = p.astype(_I32) != 0  # JAX converts the predicate to an int32 branch index
    return _tree_select(p, t, f)


def switch(index, branches, *operands, operand=None):
    if operand is not None:
        operands = operands + (operand,)
    i = clip(_arr(index).astype(_I32), 0, len(branches) - 1)
    outs = [b(*operands) for b in branches]
    res = outs[-1]
    for k in range(len(outs) - 2, -1, -1):
        res = _tree_select(i == k, outs[k], res)
    return res


def _lax_select(pred, on_true, on_false):
    p, t, f = _arr(pred), _arr(on_true, 1), _arr(on_false, 2)
    if t.dtype != f.dtype:
        raise TypeError('lax.select requires arguments to have the same dtypes, got %s, %s. (Tip: '
                        'jnp.where is a similar function that does automatic type promotion on '
                        'inputs).' % (t.dtype.name, f.dtype.name))
    if p.dtype != _BOOL:
        raise TypeError('select `which` must be boolean, got %s' % p.dtype.name)
    return where(p, t, f)


def dynamic_slice(operand, start_indices, slice_sizes):
    x = _arr(operand)
    if isinstance(start_indices, Array):
        start_indices = [start_indices[i] for i in range(start_indices.shape[0])]
    sizes = _static_shape(slice_sizes)
    if len(start_indices) != x.ndim or len(sizes) != x.ndim:
        raise TypeError('dynamic_slice: length of start_indices (%d) and slice_sizes (%d) must '
                        'match the number of dimensions of the operand (%d)'
                        % (len(start_indices), len(sizes), x.ndim))
    idx, b = [], x._v.shape[0]
    for d, (st, sz) in enumerate(zip(start_indices, sizes)):
        if sz > x.shape[d]:
            raise TypeError('slice_sizes must be less than or equal to operand shape, got '
                            'slice_sizes %s for operand shape %s' % (sizes, x.shape))
        sv = _lift(st)[0].astype(np.int64).reshape(-1)
        sv = np.clip(sv, 0, x.shape[d] - sz)  # JAX clamps the start into range
        b = b if b != 1 else sv.shape[0]
        idx.append(sv)
    nd = x.ndim
    phys = [np.arange(b).reshape((b,) + (1,) * nd)]
    for d, (sv, sz) in enumerate(zip(idx, sizes)):
        shape = [1] * (nd + 1)
        shape[0] = sv.shape[0]
        r = sv.reshape(shape) + np.arange(sz).reshape([1] * (d + 1) + [sz] + [1] * (nd - d - 1))
        phys.append(r)
    return _mk(_bcast_batch(x._v, b)[tuple(phys)])


def dynamic_update_slice(operand, update, start_indices):
    x, u = _arr(operand), _arr(update)
    if isinstance(start_indices, Array):
        start_indices = [start_indices[i] for i in range(start_indices.shape[0])]
    if u.ndim != x.ndim:
        raise TypeError('dynamic_update_slice update must have the same rank as operand')
    starts = []
    for d, st in enumerate(start_indices):
        sv = _lift(st)[0].astype(np.int64).reshape(-1)
        starts.append(np.clip(sv, 0, x.shape[d] - u.shape[d]))
    b = _batch(x._v, u._v, *[s.reshape(-1, *([1] * 0)) for s in starts])
    nd = x.ndim
    phys = [np.arange(b).reshape((b,) + (1,) * nd)]
    for d, (sv, sz) in enumerate(zip(starts, u.shape)):
        shape = [1] * (nd + 1)
        shape[0] = sv.shape[0]
        phys.append(sv.reshape(shape) + np.arange(sz).reshape([1] * (d + 1) + [sz] + [1] * (nd - d - 1)))
    out = np.array(_bcast_batch(x._v, b), order='C')
    out[tuple(phys)] = _bcast_batch(u._v.astype(x.dtype), b)
    return _mk(out)


def dynamic_slice_in_dim(operand, start_index, slice_size, axis=0):
    x = _arr(operand)
    starts = [0] * x.ndim
    sizes = list(x.shape)
    starts[axis] = start_index
    sizes[axis] = slice_size
    return dynamic_slice(x, starts, sizes)


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True):
    r = dynamic_slice_in_dim(operand, index, 1, axis)
    return r if keepdims else squeeze(r, axis)


def dynamic_update_slice_in_dim(operand, update, start_index, axis):
    x = _arr(operand)
    starts = [0] * x.ndim
    starts[axis] = start_index
    return dynamic_update_slice(x, update, starts)


def fori_loop(lower, upper, body_fun, init_val, **kw):
    lo, hi = _arr(lower), _arr(upper)
    traced = builtins_any(isinstance(x, Array) and x._t for x in (lower, upper))
    if traced:
        # A while loop (under vmap: until every item is done; items already done keep their
        # value, as JAX's batched while_loop does).
        def body(state):
            i, v = state
            return i + 1, body_fun(i, v)
        return while_loop(lambda st: st[0] < hi, body, (lo.astype(_I32), init_val))[1]
    first_i, end = int(lo._v[0]), int(hi._v[0])
    i0 = _mk(np.array([first_i], dtype=_I32))
    val = init_val
    new = body_fun(i0, val)  # traced once even when the range is empty, as in JAX
    promoted = _carry('body_fun output and input', val, new)
    if promoted is not None:
        val = promoted
        new = body_fun(i0, val)
    if first_i >= end:
        return val
    val = new
    for i in range(first_i + 1, end):
        val = body_fun(_mk(np.array([i], dtype=_I32)), val)
    return val


def while_loop(cond_fun, body_fun, init_val):
    val = init_val
    new = body_fun(val)  # traced once whatever the condition, as in JAX
    promoted = _carry('body_fun output and input', val, new)
    if promoted is not None:
        val = promoted
        new = body_fun(val)
    while True:
        c = cond_fun(val)
        cs = _aval(c)
        if cs[0] != () or cs[1] != _BOOL:
            raise TypeError('cond_fun must return a boolean scalar, but got output type(s) [%s].'
                            % _aval_str(cs[0], cs[1]))
        c = _arr(c)
        cv = c._v
        if not cv.any():
            return val
        if new is None:
            new = body_fun(val)
        val = new if cv.all() else tree_map(lambda n, o: where(c, n, o), new, val)
        new = None


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    n = length if xs is None else _arr(tree_leaves(xs)[0]).shape[0]
    order = list(range(n - 1, -1, -1) if reverse else range(n))
    if not order:
        raise _unsupported('lax.scan over zero steps')
    carry, ys = init, []
    for k, i in enumerate(order):
        x = None if xs is None else tree_map(lambda leaf: _arr(leaf)[i], xs)
        new, y = f(carry, x)
        if k == 0:
            promoted = _carry('scan body function carry output and input', carry, new)
            if promoted is not None:
                new, y = f(promoted, x)
        carry = new
        ys.append(y)
    if reverse:
        ys = ys[::-1]
    if ys[0] is None:
        return carry, None
    return carry, tree_map(lambda *a: stack(a), ys[0], *ys[1:])


def _lax_clamp(min, x, max):
    return clip(x, min, max)


def _convert_element_type(x, new_dtype):
    return _arr(x).astype(new_dtype)


def _stop_gradient(x):
    return x


# ----------------------------------------------------------------------------------------------
# jax.nn

def _relu(x):
    return maximum(x, 0)


def _sigmoid(x):
    x = _arr(x)
    return 1 / (1 + exp(-x))


def _softmax(x, axis=-1):
    x = _arr(x)
    e = exp(x - max(x, axis=axis, keepdims=True))
    return e / sum(e, axis=axis, keepdims=True)


def _one_hot(x, num_classes, dtype=None, axis=-1):
    x = _arr(x)
    n = _static_int(num_classes, 'num_classes')
    r = x._v[..., None] == np.arange(n)
    if axis != -1:
        r = np.moveaxis(r, -1, _phys_axis(axis, x.ndim + 1))
    return _mk(r.astype(_to_dtype(dtype) or _F32))


# ----------------------------------------------------------------------------------------------
# jax.debug

def _debug_print(fmt, *args, **kwargs):
    def show(a):
        if isinstance(a, Array):
            return a._v[0] if a._v.shape[0] == 1 else a._v
        return a
    print(fmt.format(*[show(a) for a in args], **{k: show(v) for k, v in kwargs.items()}))


# ----------------------------------------------------------------------------------------------
# The reward entry point

def _user_frames(tb):
    frames = []
    while tb is not None:
        if tb.tb_frame.f_code.co_filename != _FILE:
            frames.append(tb)
        tb = tb.tb_next
    out = None
    for t in reversed(frames):
        out = types.TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return out


def pcglab_reward_batch(fn, prev, curr, prev_stats=None, curr_stats=None):
    """Rewards of a batch of steps, as the official loop computes them:
    jax.jit(jax.vmap(fn))(prev, prev_stats, curr, curr_stats). prev/curr: (B, H, W) int maps;
    stats: dicts of per-environment values (shape (B,)) or None. Returns float32 numpy (B,)."""
    prev = np.asarray(prev, dtype=np.int32)
    curr = np.asarray(curr, dtype=np.int32)
    if prev.shape != curr.shape or prev.ndim != 3:
        raise ValueError('prev and curr must be (B, H, W) maps of the same shape, got %s and %s'
                         % (prev.shape, curr.shape))
    b = prev.shape[0]

    def stats(s):
        if s is None:
            return {'N_REGIONS': np.zeros(b, np.float32)}
        return {k: np.broadcast_to(np.asarray(v, np.float32), (b,)) for k, v in s.items()}
    try:
        out = jit(vmap(fn))(prev, stats(prev_stats), curr, stats(curr_stats))
    except Exception as e:
        # As JAX filters its own frames from tracebacks, drop the stand-in's: the traceback fed
        # back to the LLM shows the reward's lines and the error.
        raise e.with_traceback(_user_frames(e.__traceback__))
    if out is None:  # no return statement: `out._v` would raise a stand-in's AttributeError
        raise TypeError('reward returned None; expected a number or an array')
    if isinstance(out, (list, tuple, dict)):
        raise TypeError('compute_reward must return one number, got a %s' % type(out).__name__)
    r = out._v[0]
    if r.shape != (b,):
        raise TypeError('compute_reward must return a scalar, got an array of shape %s'
                        % (r.shape[1:],))
    if r.dtype.kind not in 'biuf':
        raise TypeError('compute_reward must return a number, got %s' % r.dtype)
    return r.astype(np.float32)


# ----------------------------------------------------------------------------------------------
# Module assembly: jax, jax.numpy, jax.lax, ...



def _module(name, attrs, short):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)

    def missing(attr):
        if attr.startswith('__'):
            raise AttributeError(attr)
        raise _unsupported('%s.%s' % (short, attr), UnsupportedAttributeError)
    m.__getattr__ = missing
    return m


_DTYPES = {n: _ScalarType(n, d) for n, d in (
    ('int8', np.int8), ('int16', np.int16), ('int32', np.int32), ('int64', np.int64),
    ('uint8', np.uint8), ('uint16', np.uint16), ('uint32', np.uint32), ('uint64', np.uint64),
    ('float16', np.float16), ('float32', np.float32), ('float64', np.float64),
    ('complex64', np.complex64), ('bool_', np.bool_))}
_DTYPES['bool'] = _DTYPES['bool_']
_DTYPES['float_'] = _DTYPES['float32']
_DTYPES['int_'] = _DTYPES['int32']

_NUMPY_NAMES = '''asarray array zeros ones empty full zeros_like ones_like full_like empty_like
arange linspace eye identity indices meshgrid abs absolute negative sign square sqrt exp log log1p
log2 log10 expm1 tanh sinh cosh sin cos tan arctan arcsin arccos floor ceil trunc rint isnan isinf
isfinite reciprocal round around round_ add subtract multiply divide true_divide floor_divide mod
remainder power pow maximum minimum fmax fmin bitwise_and bitwise_or bitwise_xor bitwise_not invert
left_shift right_shift equal not_equal greater greater_equal less less_equal arctan2 hypot
logical_and logical_or logical_xor logical_not where select clip nan_to_num isin sum prod mean std
var max amax min amin any all count_nonzero argmax argmin cumsum cumprod array_equal allclose
isclose reshape ravel transpose swapaxes moveaxis expand_dims squeeze atleast_1d atleast_2d
broadcast_to concatenate stack vstack hstack column_stack tile repeat flip fliplr flipud rot90 roll
pad diff kron outer matmul dot vdot inner take sort argsort nonzero flatnonzero argwhere unique
bincount convolve correlate nansum nanmean nanmax nanmin median einsum triu tril logaddexp average
ptp diag trace take_along_axis'''.split()

_ns = globals()
_numpy_attrs = {n: _ns[n] for n in _NUMPY_NAMES}
_numpy_attrs.update(_DTYPES)
_numpy_attrs.update(
    ndarray=Array, inf=np.inf, nan=np.nan, pi=np.pi, e=np.e, newaxis=None,
    dtype=np.dtype, iinfo=np.iinfo, finfo=np.finfo, issubdtype=np.issubdtype,
    integer=np.integer, floating=np.floating, number=np.number, bool_=_DTYPES['bool_'],
    shape=lambda a: _arr(a).shape, ndim=lambda a: _arr(a).ndim, size=lambda a: _arr(a).size,
    result_type=lambda *a: functools.reduce(lambda x, y: _result_dtype(x, False, y, False),
                                            [_to_dtype(getattr(x, 'dtype', x)) for x in a]))


def _norm(x, ord=None, axis=None, keepdims=False):
    x = _arr(x)
    xf = x.astype(_F32) if x.dtype.kind in 'biu' else x
    if ord in (None, 2, 'fro') and (axis is None or isinstance(axis, int) or ord in (None, 'fro')):
        return sqrt(sum(xf * xf, axis=axis, keepdims=keepdims))
    if ord == 1 and (x.ndim == 1 or isinstance(axis, int)):
        return sum(abs(xf), axis=axis, keepdims=keepdims)
    if ord in (np.inf, 'inf') and (x.ndim == 1 or isinstance(axis, int)):
        return max(abs(xf), axis=axis, keepdims=keepdims)
    raise _unsupported('jnp.linalg.norm(ord=%r, axis=%r)' % (ord, axis))


jnp_linalg = _module(_NAME + '.numpy.linalg', {'norm': _norm}, 'jnp.linalg')
_numpy_attrs['linalg'] = jnp_linalg
numpy_module = _module(_NAME + '.numpy', _numpy_attrs, 'jnp')

lax_module = _module(_NAME + '.lax', dict(
    cond=cond, switch=switch, select=_lax_select, dynamic_slice=dynamic_slice,
    dynamic_update_slice=dynamic_update_slice, dynamic_slice_in_dim=dynamic_slice_in_dim,
    dynamic_index_in_dim=dynamic_index_in_dim,
    dynamic_update_slice_in_dim=dynamic_update_slice_in_dim, fori_loop=fori_loop,
    while_loop=while_loop, scan=scan, clamp=_lax_clamp, max=maximum, min=minimum, abs=abs,
    add=add, sub=subtract, mul=multiply, div=divide, eq=equal, ne=not_equal, lt=less, le=less_equal,
    gt=greater, ge=greater_equal, tanh=tanh, exp=exp, sqrt=sqrt,
    convert_element_type=_convert_element_type, stop_gradient=_stop_gradient), 'jax.lax')

def _softplus(x):
    x = _arr(x)
    return logaddexp(x, 0.0)


def _leaky_relu(x, negative_slope=0.01):
    x = _arr(x)
    return where(x >= 0, x, negative_slope * x)


nn_module = _module(_NAME + '.nn', dict(relu=_relu, sigmoid=_sigmoid, softmax=_softmax,
                                        one_hot=_one_hot, softplus=_softplus,
                                        leaky_relu=_leaky_relu), 'jax.nn')
signal_module = _module(_NAME + '.scipy.signal', dict(
    convolve2d=_signal_convolve2d, correlate2d=_signal_correlate2d, convolve=_signal_convolve,
    correlate=_signal_correlate), 'jax.scipy.signal')
scipy_module = _module(_NAME + '.scipy', dict(signal=signal_module), 'jax.scipy')
debug_module = _module(_NAME + '.debug', dict(print=_debug_print), 'jax.debug')
errors_module = _module(_NAME + '.errors', dict(
    ConcretizationTypeError=ConcretizationTypeError,
    TracerBoolConversionError=TracerBoolConversionError,
    TracerIntegerConversionError=TracerIntegerConversionError,
    TracerArrayConversionError=TracerArrayConversionError,
    NonConcreteBooleanIndexError=NonConcreteBooleanIndexError,
    UnsupportedError=UnsupportedError,
    UnsupportedAttributeError=UnsupportedAttributeError), 'jax.errors')
tree_util_module = _module(_NAME + '.tree_util', dict(tree_map=tree_map, tree_leaves=tree_leaves),
                           'jax.tree_util')

_SUBMODULES = {'numpy': numpy_module, 'numpy.linalg': jnp_linalg, 'lax': lax_module,
               'nn': nn_module, 'scipy': scipy_module, 'scipy.signal': signal_module,
               'debug': debug_module, 'errors': errors_module, 'tree_util': tree_util_module}

class _Config:
    """jax.config: settings that do not change results are accepted and ignored; 64-bit types
    are refused (the stand-in, like the official loop, computes in int32/float32)."""

    def update(self, name, value):
        if name == 'jax_enable_x64' and value:
            raise _unsupported('jax_enable_x64 (64-bit types)')

    def __getattr__(self, name):
        if name == 'jax_enable_x64':
            return False
        raise _unsupported('jax.config.%s' % name, UnsupportedAttributeError)


config = _Config()

# The public `jax` module holds only JAX's own names, so that code using a name real JAX lacks
# (`jax.where`, `jax.sum`) fails here as it fails there. The module this file runs in stays loaded
# as the implementation, under <name>._standin_impl.
_PUBLIC = dict(
    numpy=numpy_module, lax=lax_module, nn=nn_module, scipy=scipy_module, debug=debug_module,
    errors=errors_module, tree_util=tree_util_module, jit=jit, vmap=vmap, Array=Array,
    config=config, pcglab_reward_batch=pcglab_reward_batch,
    __version__='0.4.30-pcglab-standin')


def _missing_jax_attr(attr):
    if attr.startswith('__'):
        raise AttributeError(attr)
    raise _unsupported('jax.%s' % attr, UnsupportedAttributeError)


class _MissingSubmoduleFinder:
    """`import jax.random` etc.: an ImportError that names what the stand-in lacks."""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        if fullname.startswith(_NAME + '.') and fullname not in sys.modules:
            raise ModuleNotFoundError("pcglab's jax stand-in does not support %s"
                                      % fullname.replace(_NAME + '.', 'jax.', 1), name=fullname)
        return None


def _register():
    public = types.ModuleType(_NAME, "pcglab's numpy-backed stand-in for JAX "
                                     "(src/pcgrl/python/jax_standin.py)")
    public.__dict__.update(_PUBLIC)
    public.__path__ = []
    public.__file__ = globals().get('__file__', '<pcglab jax stand-in>')
    public.__getattr__ = _missing_jax_attr
    impl = sys.modules.get(_NAME)
    if impl is not None:
        sys.modules[_NAME + '._standin_impl'] = impl
    sys.modules[_NAME] = public
    for sub, m in _SUBMODULES.items():
        sys.modules[_NAME + '.' + sub] = m
    if not builtins_any(isinstance(f, type) and f.__name__ == '_MissingSubmoduleFinder'
                        for f in sys.meta_path):
        sys.meta_path.append(_MissingSubmoduleFinder)


_register()
Array.__module__ = 'jax'
