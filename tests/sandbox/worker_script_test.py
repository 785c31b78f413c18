"""The sandbox worker's Python (src/sandbox/python/worker.py) tested as Python.

Run by ctest (tests/sandbox/area.cmake) with Debian's /usr/bin/python3 and its numpy:
    /usr/bin/python3 -B tests/sandbox/worker_script_test.py [-v]
Imported as a module, worker.py only defines its functions; these tests call the protocol's encoder
and decoder, the request handlers and the serve() loop directly (over pipes, with fd 1 on a
temporary file), without a sandbox. The isolation itself is tested from C++ (tests/sandbox/*.cc).
"""
import math
import os
import random
import struct
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'src', 'sandbox', 'python'))
os.environ['PCGLAB_WORKER_TEST_CANARY'] = 'still here'
import worker  # noqa: E402  (after the path and the canary)

# [ "f", [1, 2.5, "é", None, True, False], {"k": -1} ] as pcglab's encode_value writes it
# (tests/sandbox/protocol_test.cc checks the C++ side against the same bytes).
GOLDEN_VALUE = ['f', [1, 2.5, 'é', None, True, False], {'k': -1}]
GOLDEN_HEX = ('6c03000000'  # list of 3
              '730100000000000000' '66'  # "f"
              '6c06000000' '690100000000000000' '660000000000000440'  # [1, 2.5,
              '730200000000000000c3a9' '4e' '54' '46'  # "é", None, True, False]
              '6401000000' '730100000000000000' '6b' '69ffffffffffffffff')  # {"k": -1}


def encode(value):
    enc = worker.Encoder()
    enc.value(value)
    return b''.join(bytes(c) for c in enc.chunks())


def decode(data):
    value, end = worker.decode(bytearray(data), 0)
    return value, end


def frame(op, value):
    body = encode(value)
    return worker.HEADER.pack(worker.MAGIC, op, len(body)) + body


def same(a, b):
    """Equality that compares arrays by dtype, shape and data, and floats by bits (NaN too)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype and
                a.shape == b.shape and a.tobytes() == b.tobytes())
    if isinstance(a, float) and isinstance(b, float):
        return struct.pack('<d', a) == struct.pack('<d', b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def random_value(rng, depth=0):
    kinds = ['none', 'bool', 'int', 'float', 'str', 'array'] + (['list', 'dict'] if depth < 4 else [])
    kind = rng.choice(kinds)
    if kind == 'none':
        return None
    if kind == 'bool':
        return rng.random() < 0.5
    if kind == 'int':
        return rng.choice([0, -1, 1, -(1 << 63), (1 << 63) - 1, rng.randrange(-(1 << 63), 1 << 63)])
    if kind == 'float':
        return rng.choice([0.0, -0.0, math.inf, -math.inf, math.nan, rng.uniform(-1e300, 1e300)])
    if kind == 'str':
        return ''.join(rng.choice('aé€\U0001f600\n\0"') for _ in range(rng.randrange(0, 12)))
    if kind == 'array':
        dtype = np.dtype(rng.choice(sorted(worker.DTYPES)))
        shape = tuple(rng.randrange(0, 4) for _ in range(rng.randrange(0, 4)))  # 0-d too
        data = bytes(rng.randrange(256) for _ in range(int(np.prod(shape, dtype=np.int64)) * dtype.itemsize))
        a = np.frombuffer(data, dtype=dtype).reshape(shape)
        return a if dtype != np.bool_ else a.astype(bool)
    if kind == 'list':
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(0, 5))]
    return {'k%d' % i: random_value(rng, depth + 1) for i in range(rng.randrange(0, 5))}


class Imported(unittest.TestCase):
    def test_importing_runs_nothing(self):
        # The worker's own start-up clears the environment and takes fds 1-4; an import does neither.
        self.assertFalse(worker.AS_WORKER)
        self.assertFalse(worker.FORKED)
        self.assertEqual(os.environ.get('PCGLAB_WORKER_TEST_CANARY'), 'still here')


class Decode(unittest.TestCase):
    def test_golden_bytes(self):
        data = bytes.fromhex(GOLDEN_HEX)
        self.assertEqual(encode(GOLDEN_VALUE).hex(), GOLDEN_HEX)
        value, end = decode(data)
        self.assertTrue(same(value, GOLDEN_VALUE), value)
        self.assertEqual(end, len(data))

    def test_round_trips_random_values(self):
        seed = 20261125
        rng = random.Random(seed)
        for case in range(500):
            v = random_value(rng)
            data = encode(v)
            got, end = decode(data)
            self.assertEqual(end, len(data), 'seed %d case %d' % (seed, case))
            self.assertTrue(same(got, v), 'seed %d case %d: %r != %r' % (seed, case, got, v))

    def test_arrays_are_aligned_writable_views_of_the_request(self):
        a = np.arange(12, dtype='<i4').reshape(3, 4)
        buf = bytearray(encode(['x', a]))
        (name, got), _ = worker.decode(buf, 0)
        self.assertTrue(same(got, a))
        self.assertTrue(got.flags.writeable)
        self.assertEqual(np.byte_bounds(got)[0] % 8, np.byte_bounds(np.frombuffer(buf, np.uint8))[0] % 8)
        got[0, 0] = 99  # a view: the request's own bytes change
        self.assertEqual(struct.unpack_from('<i', buf, buf.index(b'\x63\x00\x00\x00'))[0], 99)

    def test_empty_arrays(self):
        for a in (np.zeros((0, 3), '<f8'), np.zeros((2, 0), '|u1'), np.zeros(0, '|b1')):
            got, _ = decode(encode(a))
            self.assertTrue(same(got, a), (got, a))

    def test_zero_dimensional_arrays(self):
        # A 0-d array crosses as ndim 0, no dimensions and one element (it crossed with shape (1,)
        # when the encoder took np.ascontiguousarray, which returns at least one dimension).
        for a in (np.array(7, '<i8'), np.array(2.5, '<f4'), np.array(True), np.array(-3, '>i4'),
                  np.ones((2, 3), '<u2')[1, 2, None].reshape(())):
            data = encode(a)
            self.assertEqual(data[:6], b'a\x03' + a.dtype.newbyteorder('<').str.encode() + b'\x00', a)
            got, end = decode(data)
            self.assertEqual(end, len(data))
            self.assertEqual(got.shape, ())
            self.assertTrue(same(got, np.asarray(a, a.dtype.newbyteorder('<'))), (got, a))
        # 'a', dtype '<i8', ndim 0, no dimensions, 8 bytes of data, padding to 8, the data
        self.assertEqual(encode(np.array(7, '<i8')).hex(),
                         '61' '03' '3c6938' '00' '0800000000000000' '0000' '0700000000000000')

    def test_an_array_whose_data_does_not_match_its_shape(self):
        # Checked for every header, also after the same shape and dtype crossed with the right size.
        good = encode(np.zeros((2, 3), '<i4'))
        self.assertEqual(decode(good)[0].shape, (2, 3))
        size_at = 6 + 2 * 8  # 'a', dtype size and dtype, ndim, two dimensions
        self.assertEqual(struct.unpack_from('<Q', good, size_at)[0], 24)
        for size in (20, 28, 0):
            bad = bytearray(good)
            struct.pack_into('<Q', bad, size_at, size)
            if size == 0:
                bad = bad[:size_at + 8 + 2]  # the padding, no data
            for _ in range(2):
                with self.assertRaisesRegex(worker.ProtocolError, 'does not match its shape'):
                    decode(bad)
        with self.assertRaisesRegex(worker.ProtocolError, 'unsupported array dtype'):
            decode(b'a\x02<i\x00' + bytes(8))

    def test_call_requests_decode_as_the_general_decoder_does(self):
        # decode_call, with and without a plan from an earlier request of the same size: the same
        # values as decode(), arrays that are writable views of this request, fresh lists and dict.
        seed = 20261126
        rng = random.Random(seed)
        worker.CALL_PLANS.clear()
        layouts = [[np.zeros((16, 16), '|i1')] * 2, [np.zeros(3, '<f8')], [np.zeros((2, 0), '<i4'), np.ones(2, '|b1')],
                   [np.zeros((2, 2), '<u2'), 5], []]
        for case in range(300):
            args = [a if not isinstance(a, np.ndarray) else
                    np.frombuffer(bytes(rng.randrange(256) for _ in range(a.nbytes)), a.dtype).reshape(a.shape)
                    for a in rng.choice(layouts)]
            args = [a.astype(bool) if isinstance(a, np.ndarray) and a.dtype == np.bool_ else a for a in args]
            name = rng.choice(['f', 'g', 'reward', 'rewarD'])
            kwargs = rng.choice([{}, {}, {'k': 1}])
            buf = bytearray(encode([name, args, kwargs]))
            want, want_end = worker.decode(bytearray(buf), 0)
            for _ in range(2):  # the second time from the plan, when there is one
                got, end = worker.decode_call(buf)
                msg = 'seed %d case %d' % (seed, case)
                self.assertEqual(end, want_end, msg)
                self.assertTrue(same(got, want), '%s: %r != %r' % (msg, got, want))
                for a in got[1]:
                    if isinstance(a, np.ndarray) and a.nbytes:
                        self.assertTrue(a.flags.writeable, msg)
                        self.assertTrue(np.shares_memory(a, np.frombuffer(buf, np.uint8)), msg)
                got[2]['added'] = 1  # the code may change what it was given
                got[1].append(0)
        self.assertTrue(worker.CALL_PLANS)

    def test_a_plan_is_used_only_for_the_same_bytes_outside_the_data(self):
        worker.CALL_PLANS.clear()
        a = np.arange(4, dtype='<i4')
        worker.decode_call(bytearray(encode(['f', [a], {}])))
        self.assertEqual(len(worker.CALL_PLANS), 1)
        for other in (['g', [a], {}], ['f', [a.astype('<u4')], {}], ['f', [a.reshape(2, 2)[:, :2].ravel()], {}],
                      ['f', [a.astype('<f4')], {}]):
            buf = bytearray(encode(other))
            got, _ = worker.decode_call(buf)
            self.assertTrue(same(got, worker.decode(bytearray(buf), 0)[0]), (got, other))
        # Same size, one byte of the array header changed (its dtype): not the plan's request.
        buf = bytearray(encode(['f', [a], {}]))
        buf[buf.index(b'<i4') + 1] = ord('u')
        got, _ = worker.decode_call(buf)
        self.assertEqual(got[1][0].dtype, np.dtype('<u4'))

    def test_unknown_tag(self):
        with self.assertRaisesRegex(worker.ProtocolError, 'unknown value tag 122'):
            decode(b'z')

    def test_nesting_deeper_than_the_limit(self):
        deep = b'l\x01\x00\x00\x00' * (worker.MAX_DEPTH + 1) + b'N'
        with self.assertRaisesRegex(worker.ProtocolError, 'nested too deeply'):
            decode(deep)
        ok = b'l\x01\x00\x00\x00' * worker.MAX_DEPTH + b'N'
        self.assertEqual(decode(ok)[1], len(ok))


class Encode(unittest.TestCase):
    def assertEncodeError(self, value, pattern, kind=worker.EncodeError):
        with self.assertRaisesRegex(kind, pattern):
            encode(value)

    def test_numpy_scalars_cross_as_python_values(self):
        self.assertEqual(decode(encode([np.int16(-3), np.float32(0.5), np.True_, np.False_]))[0],
                         [-3, 0.5, True, False])

    def test_big_endian_arrays_cross_as_little_endian(self):
        a = np.arange(4, dtype='>i4')
        got, _ = decode(encode(a))
        self.assertEqual(got.dtype.str, '<i4')
        self.assertEqual(got.tolist(), [0, 1, 2, 3])

    def test_values_that_cannot_cross(self):
        self.assertEncodeError(1 << 63, 'does not fit in 64 bits')
        self.assertEncodeError({1: 2}, 'dict keys must be str, got int')
        self.assertEncodeError(np.zeros(2, complex), 'numpy dtype complex128 is not supported')
        self.assertEncodeError(np.array([None]), 'numpy dtype object is not supported')
        self.assertEncodeError(len, 'values of type builtin_function_or_method cannot be returned')
        self.assertEncodeError(b'bytes', 'values of type bytes cannot be returned')
        deep = None
        for _ in range(worker.MAX_DEPTH + 1):
            deep = [deep]
        self.assertEncodeError(deep, 'nested more than 100 levels deep')

    def test_reply_size_limit(self):
        old = worker.settings['reply_bytes']
        worker.settings['reply_bytes'] = 1000
        try:
            self.assertEncodeError('x' * 1000, 'the reply exceeds 1000 bytes', worker.ReplyTooLarge)
            encode('x' * 900)
        finally:
            worker.settings['reply_bytes'] = old

    def test_large_pieces_are_not_copied(self):
        big = np.zeros(1 << 17, np.uint8)
        enc = worker.Encoder()
        enc.value(['s' * 70000, big])
        chunks = enc.chunks()
        self.assertTrue(any(isinstance(c, memoryview) and len(c) == big.nbytes for c in chunks))
        self.assertEqual(enc.pos, sum(len(c) for c in chunks))


class SmallReply(unittest.TestCase):
    """send()'s one-step encoding of a small [result, output] is byte for byte the Encoder's."""

    def general(self, status, value):
        body = encode(value)
        return worker.HEADER.pack(worker.MAGIC, status, len(body)) + body

    def test_same_bytes_as_the_encoder(self):
        results = [None, True, False, 0, -1, 7, -(1 << 63), (1 << 63) - 1, 0.0, -0.0, 2.5, math.inf, math.nan]
        outputs = ['', 'hi\n', 'é€\U0001f600', '\ud800', 'x' * worker.SMALL_OUTPUT]
        for result in results:
            for output in outputs:
                got = worker.small_reply(worker.ST_OK, [result, output])
                self.assertEqual(got, self.general(worker.ST_OK, [result, output]), (result, output))

    def test_everything_else_takes_the_encoder(self):
        for value in ([1 << 63, ''], [np.int64(1), ''], [np.float32(1), ''], ['s', ''], [[1], ''],
                      [1, 'x' * (worker.SMALL_OUTPUT + 1)]):
            self.assertIsNone(worker.small_reply(worker.ST_OK, value), value)

    def test_the_reply_limit_still_holds(self):
        old = worker.settings['reply_bytes']
        worker.settings['reply_bytes'] = 20
        try:
            self.assertIsNone(worker.small_reply(worker.ST_OK, [1, 'x' * 10]))
        finally:
            worker.settings['reply_bytes'] = old


class Handlers(unittest.TestCase):
    def setUp(self):
        self.old_module, self.old_file = worker.module, worker.USER_FILE

    def tearDown(self):
        worker.module, worker.USER_FILE = self.old_module, self.old_file
        sys.modules.pop('__generated__', None)

    def load(self, source, filename='gen.py'):
        return worker.handle_load([filename, source])

    def test_load_and_call(self):
        self.assertIsNone(self.load('def f(a, b=0):\n    return a * 10 + b\n'))
        self.assertEqual(worker.handle_call(['f', [4], {'b': 2}]), 42)
        self.assertEqual(worker.handle_call(['f', [4], None]), 40)
        self.assertEqual(worker.USER_FILE, 'gen.py')

    def test_map_and_map_stacked(self):
        self.load('def f(*a):\n    return sum(int(x.sum()) if hasattr(x, "sum") else x for x in a)\n')
        self.assertEqual(worker.handle_map(['f', [[1, 2], [3, 4]]]), [3, 7])
        a = np.arange(6, dtype='<i4').reshape(3, 2)
        self.assertEqual(worker.handle_map_stacked(['f', [a]]), [1, 5, 9])
        self.assertEqual(worker.handle_map_stacked(['f', [a, a]]), [2, 10, 18])
        self.assertEqual(worker.handle_map_stacked(['f', [a, a, a]]), [3, 15, 27])

    def test_function_lookup_errors(self):
        worker.module = None
        with self.assertRaisesRegex(NameError, 'no module is loaded'):
            worker.handle_call(['f', [], {}])
        self.load('x = 1\n')
        with self.assertRaisesRegex(NameError, "the code defines no 'f'"):
            worker.handle_call(['f', [], {}])
        with self.assertRaisesRegex(TypeError, "'x' is not callable"):
            worker.handle_call(['x', [], {}])

    def test_a_failed_load_leaves_no_module(self):
        self.load('def f():\n    return 1\n')
        with self.assertRaises(ZeroDivisionError):
            self.load('y = 1 / 0\n')
        self.assertIsNone(worker.module)

    def test_error_reply_causes_and_hints(self):
        def reply(e):
            return worker.error_reply(e)[:2]
        self.assertEqual(reply(ValueError('bad')), ['exception', 'ValueError: bad'])
        self.assertEqual(reply(MemoryError())[0], 'memory')
        self.assertEqual(reply(RecursionError('deep'))[0], 'recursion')
        self.assertEqual(reply(SyntaxError('oops'))[0], 'syntax')
        self.assertEqual(reply(worker.ReplyTooLarge('big')), ['reply-size', 'big'])
        self.assertEqual(reply(worker.EncodeError('no')), ['value', 'no'])
        self.assertIn('[denied by the sandbox]', reply(PermissionError(1, 'Operation not permitted'))[1])
        self.assertIn('read-only except /tmp', reply(OSError(30, 'Read-only file system'))[1])

    def test_syntax_error_names_the_file_and_line(self):
        with self.assertRaises(SyntaxError) as caught:
            self.load('x = 1\ndef (:\n', 'reward.py')
        cause, message, tb = worker.error_reply(caught.exception)
        self.assertEqual(cause, 'syntax')
        self.assertIn('reward.py', tb)
        self.assertIn('line 2', tb)

    def test_preload_modules_and_parents(self):
        try:
            worker.run_preload([('pkg_t.sub', 'VALUE = 5\n')], -1)
            import pkg_t.sub
            self.assertEqual(pkg_t.sub.VALUE, 5)
            self.load('import pkg_t.sub\ndef f():\n    return pkg_t.sub.VALUE\n')
            self.assertEqual(worker.handle_call(['f', [], {}]), 5)
        finally:
            for name in ('pkg_t.sub', 'pkg_t'):
                sys.modules.pop(name, None)

    def test_bounded_text(self):
        old = worker.settings['output_bytes']
        worker.settings['output_bytes'] = 5
        try:
            t = worker.BoundedText()
            t.write('abc')
            t.write('defgh')
            self.assertEqual(t.take(), ('abcde', 3))
            self.assertEqual(t.take(), ('', 0))
            with self.assertRaises(TypeError):
                t.write(b'x')
        finally:
            worker.settings['output_bytes'] = old


class PidCounter(unittest.TestCase):
    """pids_allocated(): the kill(-1) sweep is skipped only while the namespace's pid counter stands,
    and only over intervals too short for the counter to wrap back to the same value."""

    def setUp(self):
        self.saved = {name: getattr(worker, name) for name in
                      ('pid_counter', 'pid_counter_wrap_ns', 'pid_counter_seen', 'pid_counter_time')}
        self.file = tempfile.TemporaryFile()
        self.set(b'527\n')
        worker.pid_counter = self.file.fileno()
        worker.pid_counter_wrap_ns = 10 ** 12

    def tearDown(self):
        for name, value in self.saved.items():
            setattr(worker, name, value)
        self.file.close()

    def set(self, value):
        self.file.seek(0)
        self.file.truncate()
        self.file.write(value)
        self.file.flush()

    def test_a_standing_counter_skips_a_moved_one_sweeps(self):
        self.assertTrue(worker.pids_allocated())  # the first reading has nothing to compare with
        self.assertFalse(worker.pids_allocated())
        self.assertFalse(worker.pids_allocated())
        self.set(b'528\n')
        self.assertTrue(worker.pids_allocated())
        self.assertFalse(worker.pids_allocated())

    def test_an_interval_that_could_hold_a_wrap_sweeps(self):
        self.assertTrue(worker.pids_allocated())
        worker.pid_counter_time -= 10 ** 12  # the last reading was as long ago as a wrap takes
        self.assertTrue(worker.pids_allocated())
        self.assertFalse(worker.pids_allocated())
        worker.pid_counter_wrap_ns = 0  # no bound (no process limit, or pid_max too small)
        self.assertTrue(worker.pids_allocated())
        self.assertTrue(worker.pids_allocated())

    def test_no_counter_or_an_unreadable_one_always_sweeps(self):
        worker.pid_counter = -1
        self.assertTrue(worker.pids_allocated())
        self.assertTrue(worker.pids_allocated())
        r, w = os.pipe()
        os.close(w)
        worker.pid_counter = r  # a pipe: pread fails
        try:
            self.assertTrue(worker.pids_allocated())
            self.assertTrue(worker.pids_allocated())
        finally:
            os.close(r)
        worker.pid_counter = self.file.fileno()
        self.set(b'')  # nothing read: never the same
        self.assertTrue(worker.pids_allocated())
        self.assertTrue(worker.pids_allocated())

    def test_the_wrap_bound_follows_pid_max_and_the_process_limit(self):
        # (pid_max - 300 - nproc) clones of at least 100 ns each; none without a process limit.
        self.assertEqual(worker.wrap_interval_ns(32768, 32), 3243600)
        self.assertEqual(worker.wrap_interval_ns(4194304, 64), 419394000)
        self.assertEqual(worker.wrap_interval_ns(32768, 0), 0)
        self.assertEqual(worker.wrap_interval_ns(301, 32), 0)


class Spin(unittest.TestCase):
    """spin_for_request: polls and yields before the read sleeps, within its two rules. The clock is
    a fake that moves 100 ns a reading, and by what a yield adds (no test depends on real time)."""

    class Clock:
        def __init__(self):
            self.ns = 0

        def perf_counter_ns(self):
            self.ns += 100
            return self.ns

    def setUp(self):
        self.saved = {name: getattr(worker, name) for name in ('REQ_FD', 'request_poll', 'spin_skip', 'time')}
        self.clock = worker.time = Spin.Clock()
        self.saved_spin = worker.settings.get('spin_ns')
        self.saved_yield = worker.os.sched_yield
        self.r, self.w = os.pipe()
        worker.REQ_FD, worker.request_poll, worker.spin_skip = self.r, None, 0
        self.yields = 0

    def tearDown(self):
        worker.os.sched_yield = self.saved_yield
        for name, value in self.saved.items():
            setattr(worker, name, value)
        if self.saved_spin is None:
            worker.settings.pop('spin_ns', None)
        else:
            worker.settings['spin_ns'] = self.saved_spin
        os.close(self.r)
        os.close(self.w)

    def count_yield(self, then=None):
        def pause():
            self.yields += 1
            if self.yields > 10**5:
                raise AssertionError('the spin does not end')
            if then:
                then()
        worker.os.sched_yield = pause

    def test_no_budget_no_spin(self):
        worker.settings['spin_ns'] = 0
        self.count_yield()
        worker.spin_for_request()
        self.assertEqual((self.yields, worker.spin_skip), (0, 0))

    def test_a_request_that_comes_during_the_spin_ends_it_and_keeps_spinning_on(self):
        worker.settings['spin_ns'] = 60 * 10**9  # never runs out here
        self.count_yield(then=lambda: os.write(self.w, b'x') if self.yields == 3 else None)
        worker.spin_for_request()
        self.assertEqual((self.yields, worker.spin_skip), (3, 0))

    def test_a_spin_that_runs_out_skips_the_next_seven(self):
        worker.settings['spin_ns'] = 10**4  # 100 clock readings
        self.count_yield()
        worker.spin_for_request()
        self.assertEqual(worker.spin_skip, worker.SPIN_SKIP)
        self.assertGreater(self.yields, 10)
        self.yields = 0
        for k in range(worker.SPIN_SKIP):
            worker.spin_for_request()
        self.assertEqual((self.yields, worker.spin_skip), (0, 0))

    def test_a_yield_that_gave_the_cpu_away_ends_the_spin(self):
        worker.settings['spin_ns'] = 60 * 10**9
        def another_task_ran():
            self.clock.ns += 10**6  # for 1 ms
        self.count_yield(then=another_task_ran)
        worker.spin_for_request()
        self.assertEqual((self.yields, worker.spin_skip), (1, worker.SPIN_SKIP))


class Serve(unittest.TestCase):
    """The protocol loop over two pipes, fd 1 on a temporary file (the worker's capture)."""

    def setUp(self):
        self.saved = {name: getattr(worker, name) for name in ('REQ_FD', 'REP_FD', 'module', 'USER_FILE')}
        self.saved_text = getattr(worker, 'text', None)
        worker.diag_fd = -1  # become_worker() sets it: the pipe to pcglab (preload names)
        self.saved_stdout = sys.stdout
        self.saved_fd1 = os.dup(1)
        self.capture = tempfile.TemporaryFile()
        os.dup2(self.capture.fileno(), 1)
        worker.text = worker.BoundedText()
        sys.stdout = worker.text

    def tearDown(self):
        sys.stdout = self.saved_stdout
        os.dup2(self.saved_fd1, 1)
        os.close(self.saved_fd1)
        self.capture.close()
        for name, value in self.saved.items():
            setattr(worker, name, value)
        worker.text = self.saved_text
        sys.modules.pop('__generated__', None)

    def serve(self, *frames):
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        data = b''.join(frames)
        self.assertLess(len(data), 60000)  # fits the pipe: written before serve() reads it
        os.write(req_w, data)
        os.close(req_w)
        worker.REQ_FD, worker.REP_FD = req_r, rep_w
        try:
            worker.serve()
        finally:
            os.close(req_r)
            os.close(rep_w)
        replies = []
        with os.fdopen(rep_r, 'rb') as f:
            while True:
                head = f.read(worker.HEADER.size)
                if not head:
                    return replies
                magic, status, n = worker.HEADER.unpack(head)
                self.assertEqual(magic, worker.MAGIC)
                value, end = decode(f.read(n))
                self.assertEqual(end, n)
                replies.append((status, value))

    def test_a_session(self):
        replies = self.serve(
            frame(worker.OP_INIT, [[], {'nproc': 0}]),
            frame(worker.OP_LOAD, ['gen.py', 'import os\ndef f(x):\n    print("hi", x)\n'
                                   '    os.write(1, b"raw")\n    return x + 1\n'
                                   'def g():\n    raise KeyError("k")\n']),
            frame(worker.OP_CALL, ['f', [1], {}]),
            frame(worker.OP_MAP, ['f', [[2], [3]]]),
            frame(worker.OP_CALL, ['g', [], {}]),
            frame(worker.OP_CALL, ['f', [4], {}]))
        self.assertEqual([s for s, _ in replies], [worker.ST_OK] * 4 + [worker.ST_ERR, worker.ST_OK])
        self.assertEqual(replies[0][1], [None, ''])
        self.assertEqual(replies[1][1], [None, ''])
        self.assertEqual(replies[2][1], [2, 'hi 1\nraw'])
        self.assertEqual(replies[3][1], [[3, 4], 'hi 2\nhi 3\nrawraw'])
        cause, message, tb, output = replies[4][1]
        self.assertEqual((cause, message, output), ('exception', "KeyError: 'k'", ''))
        self.assertIn('gen.py", line 7, in g', tb)
        self.assertEqual(replies[5][1], [5, 'hi 4\nraw'])

    def test_a_request_larger_than_one_read(self):
        # Over 64 KiB: the first read takes its start, the rest is read into the payload (a socket
        # pair: a writer thread feeds it while serve() reads).
        big = np.arange(40000, dtype='<i4')  # 160,000 bytes
        frames = (frame(worker.OP_LOAD, ['gen.py', 'def f(a):\n    a += 1\n    return int(a.sum())\n']) +
                  frame(worker.OP_CALL, ['f', [big], {}]) + frame(worker.OP_CALL, ['f', [big[:3]], {}]))
        import socket
        import threading
        req_host, req_worker = socket.socketpair()
        rep_r, rep_w = os.pipe()
        writer = threading.Thread(target=lambda: (req_host.sendall(frames), req_host.close()))
        writer.start()
        worker.REQ_FD, worker.REP_FD = req_worker.fileno(), rep_w
        replies = []
        reader = threading.Thread(target=lambda: replies.append(os.fdopen(rep_r, 'rb').read()))
        reader.start()
        try:
            worker.serve()
        finally:
            os.close(rep_w)
            writer.join()
            reader.join()
            req_worker.close()
        data, values = replies[0], []
        while data:
            _, _, n = worker.HEADER.unpack_from(data)
            values.append(decode(data[16:16 + n])[0])
            data = data[16 + n:]
        self.assertEqual(values[1], [int(big.sum()) + 40000, ''])  # a writable view of the request
        self.assertEqual(values[2], [1 + 2 + 3, ''])

    def test_a_value_that_cannot_cross_is_an_error_reply(self):
        replies = self.serve(frame(worker.OP_LOAD, ['gen.py', 'def f():\n    return {1: 2}\n']),
                             frame(worker.OP_CALL, ['f', [], {}]))
        status, value = replies[1]
        self.assertEqual(status, worker.ST_ERR)
        self.assertEqual(value[:2], ['value', 'dict keys must be str, got int'])

    def test_a_bad_header_or_trailing_bytes_end_the_loop(self):
        with self.assertRaisesRegex(worker.ProtocolError, 'bad request header'):
            self.serve(worker.HEADER.pack(worker.MAGIC + 1, worker.OP_CALL, 0))
        with self.assertRaisesRegex(worker.ProtocolError, 'bad request header'):
            self.serve(worker.HEADER.pack(worker.MAGIC, 99, 0))
        body = encode(None) + b'N'
        with self.assertRaisesRegex(worker.ProtocolError, 'trailing bytes'):
            self.serve(worker.HEADER.pack(worker.MAGIC, worker.OP_CALL, len(body)) + body)


if __name__ == '__main__':
    unittest.main()
