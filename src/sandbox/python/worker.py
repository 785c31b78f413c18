# pcglab's sandbox worker: the protocol loop that /usr/bin/python3 runs inside bubblewrap, and the
# zygote that forks workers (zygote.h). pcglab runs this text as `python3 -I -S -B -c <text>
# [zygote] [no-numpy]` (embedded at build time: sandbox/worker_script.cc); it is pcglab's own code
# and runs before any generated code: it imports numpy (with `no-numpy`: on first use only), runs
# the track's preload modules, applies the limits
# that must be set inside the user namespace (RLIMIT_NPROC), moves fd 1 and 2 onto a capture file,
# and then answers requests on the protocol fds (3: requests in, 4: replies out) until its input
# closes. The wire format is described in protocol.h and must match protocol.cc.
#
# Imported as a module (tests/sandbox/worker_script_test.py) it only defines its functions: nothing
# below runs, the environment is left alone and no descriptor is touched unless a test calls it.
import os, sys
AS_WORKER = __name__ == '__main__'  # `python3 -c` runs the text as __main__
if AS_WORKER:
    os.environ.clear()
    # One BLAS/OpenMP thread: the worker is one item's process, parallelism comes from the pool, and
    # every extra thread costs address space under RLIMIT_AS.
    os.environ['OPENBLAS_NUM_THREADS'] = '1'
    os.environ['OMP_NUM_THREADS'] = '1'
    sys.path.append('/usr/lib/python3/dist-packages')
    sys.dont_write_bytecode = True
import errno, math, struct, signal, resource, traceback, types, linecache, gc, time

class NoNumpy:
    # Stands for numpy while the process has not imported it (a preload set without numpy,
    # WorkerConfig::numpy = false): no value can be a numpy value, so every test below is false.
    True_ = False_ = object()
    integer = floating = ndarray = ()

NO_NUMPY = NoNumpy()
# `no-numpy` on the command line: numpy is imported on first use only (an array in a request, or a
# reply after the code imported numpy itself), not at start. The two thread settings then stay in
# the environment, so a later import of numpy gets the one BLAS thread it gets here.
LAZY_NUMPY = AS_WORKER and 'no-numpy' in sys.argv[1:]
if LAZY_NUMPY:
    np = NO_NUMPY
else:
    import numpy as np
    if AS_WORKER:
        del os.environ['OPENBLAS_NUM_THREADS'], os.environ['OMP_NUM_THREADS']

REQ_FD, REP_FD = 3, 4
MAGIC = 0x57474350
HEADER = struct.Struct('<IBxxxQ')
I64 = struct.Struct('<q'); F64 = struct.Struct('<d'); U32 = struct.Struct('<I'); U64 = struct.Struct('<Q')
OP_INIT, OP_LOAD, OP_CALL, OP_MAP, OP_MAP_STACKED = 1, 2, 3, 4, 5
ST_OK, ST_ERR = 0, 1
MAX_DEPTH = 100
DTYPES = {'|b1', '|i1', '|u1', '<i2', '<u2', '<i4', '<u4', '<i8', '<u8', '<f4', '<f8'}
DTYPE_OF = {} if np is NO_NUMPY else {d.encode('ascii'): np.dtype(d) for d in DTYPES}

def bind_numpy(only_if_imported):
    # numpy for the protocol, in a process that started without it: when `only_if_imported`, only
    # if the code imported it (then its values may be in a reply), else imported now (an array came).
    global np
    if np is not NO_NUMPY or (only_if_imported and 'numpy' not in sys.modules):
        return
    import numpy
    DTYPE_OF.update({d.encode('ascii'): numpy.dtype(d) for d in DTYPES})
    np = numpy
SHAPE = [struct.Struct('<%dq' % n) for n in range(33)]
ARRAY_HEADS = [struct.Struct('<B3sB%dqQ' % n) for n in range(33)]  # dtype size, dtype, ndim, shape, data size
settings = {'output_bytes': 65536, 'reply_bytes': 1 << 28, 'nproc': 32}

class ProtocolError(Exception):
    pass

class EncodeError(Exception):
    pass

class ReplyTooLarge(EncodeError):
    pass

MAIN_PID = os.getpid()

# A request as pcglab writes it (header and payload in one send): one read takes a small one whole.
# Bytes read past its end (pcglab never sends a request before the last one's reply, so none in
# practice) are kept for the next. The payload is a fresh bytearray per request: the arrays of a
# request are writable views of it, which the code may keep.
READ_SIZE = 65536
pending = b''
request_poll = None
SPIN_SKIP = 7  # as pcglab's Worker::kSpinSkip
YIELDED_AWAY_NS = 5000  # as pcglab's kYieldedAway
spin_skip = 0

def spin_for_request():
    # Polls for the next request for up to settings['spin_ns'] (pcglab's WorkerConfig::spin_us),
    # yielding the CPU between polls, before the read sleeps in the kernel: a sleeping worker's
    # wake-up costs ~40 us on a virtual machine whose idle CPUs halt. Bounded: an idle worker sleeps.
    global request_poll, spin_skip
    budget = settings.get('spin_ns', 0)
    if budget <= 0:
        return
    if request_poll is None:
        import select
        request_poll = select.poll()
        request_poll.register(REQ_FD, select.POLLIN)
    if spin_skip:
        spin_skip -= 1
        return
    poll, now, pause = request_poll.poll, time.perf_counter_ns, os.sched_yield
    end = now() + budget
    while not poll(0):
        t = now()
        # Ran out (the host takes longer between requests), or a yield gave the CPU away (to the host
        # on this CPU, or another task of a busy machine: spinning saves no wake-up). Spin again
        # only before every 8th request until one comes within a spin.
        if t >= end:
            spin_skip = SPIN_SKIP
            return
        pause()
        if now() - t > YIELDED_AWAY_NS:
            spin_skip = SPIN_SKIP
            return

def read_request():
    global pending
    if not pending:
        spin_for_request()
    data = pending or os.read(REQ_FD, READ_SIZE)
    pending = b''
    if not data:
        raise EOFError
    while len(data) < HEADER.size:
        more = os.read(REQ_FD, READ_SIZE)
        if not more:
            raise EOFError
        data += more
    magic, op, n = HEADER.unpack_from(data)
    if magic != MAGIC or op not in HANDLERS:
        raise ProtocolError('bad request header')
    end = HEADER.size + n
    if len(data) >= end:
        pending = data[end:]
        return op, bytearray(memoryview(data)[HEADER.size:end])
    body = bytearray(n)
    got = len(data) - HEADER.size
    body[:got] = memoryview(data)[HEADER.size:]
    view = memoryview(body)
    while got < n:
        k = os.readv(REQ_FD, [view[got:]])
        if k == 0:
            raise EOFError
        got += k
    return op, body

def write_all(data):
    k = os.write(REP_FD, data)  # a small reply: all of it
    if k == len(data):
        return
    view = memoryview(data)[k:]
    while view:
        k = os.write(REP_FD, view)
        view = view[k:]

def decode(buf, pos, depth=0):
    # Tags by how often requests hold them: containers, strings (names) and arrays first.
    if depth > MAX_DEPTH:
        raise ProtocolError('value nested too deeply')
    t = buf[pos]; pos += 1
    if t == 0x6c:
        n = U32.unpack_from(buf, pos)[0]; pos += 4
        out = []
        for _ in range(n):
            v, pos = decode(buf, pos, depth + 1)
            out.append(v)
        return out, pos
    if t == 0x73:
        n = U64.unpack_from(buf, pos)[0]; pos += 8
        return str(buf[pos:pos + n], 'utf-8'), pos + n
    if t == 0x61:
        return decode_array(buf, pos)
    if t == 0x64:
        n = U32.unpack_from(buf, pos)[0]; pos += 4
        out = {}
        for _ in range(n):
            k, pos = decode(buf, pos, depth + 1)
            v, pos = decode(buf, pos, depth + 1)
            out[k] = v
        return out, pos
    if t == 0x69: return I64.unpack_from(buf, pos)[0], pos + 8
    if t == 0x66: return F64.unpack_from(buf, pos)[0], pos + 8
    if t == 0x4e: return None, pos
    if t == 0x54: return True, pos
    if t == 0x46: return False, pos
    raise ProtocolError('unknown value tag %d' % t)

def decode_array(buf, pos):
    # An array after its tag: a writable view of the request's bytes (aligned to 8 by the padding).
    if buf[pos] != 3:  # every supported dtype has 3 characters
        raise ProtocolError('unsupported array dtype')
    head = ARRAY_HEADS[buf[pos + 4]].unpack_from(buf, pos)  # dtype size, dtype, ndim, shape, data size
    layout = ARRAY_LAYOUTS.get(head)
    if layout is None:
        layout = array_layout(head)
    dt, shape, nbytes = layout
    pos += 13 + 8 * len(shape)
    pos += (-pos) % 8
    if nbytes == 0:
        return np.empty(shape, dtype=dt), pos
    return np.ndarray(shape, dt, buf, pos), pos + nbytes

ARRAY_LAYOUTS = {}  # an array header seen before: its dtype, shape and data size, checked once

def array_layout(head):
    if np is NO_NUMPY:
        bind_numpy(False)
    dt = DTYPE_OF[head[1]]
    shape = head[3:-1]
    nbytes = head[-1]
    if nbytes != dt.itemsize * math.prod(shape):
        raise ProtocolError('array data of %d bytes does not match its shape and dtype' % nbytes)
    if len(ARRAY_LAYOUTS) >= 256:
        ARRAY_LAYOUTS.clear()
    layout = ARRAY_LAYOUTS[head] = (dt, shape, nbytes)
    return layout

CALL_HEAD = struct.Struct('<BIBQ')  # [name, ...: the list's tag and length, the name's tag and size

def decode_call(buf):
    # A call request [name, [args...], {kwargs}] as decode() reads it, with fewer Python calls: the
    # name and the argument list are read here and an array argument by decode_array directly (the
    # generic decode of a call with two arrays took a third of the worker's time per call). A call
    # whose arguments are all non-empty arrays and which has no keyword arguments leaves a plan: its
    # bytes but the arrays' data. A later request of the same size whose bytes outside the data are
    # the same decodes to the same structure, so it is answered from the plan (new views, new lists).
    end = len(buf)
    plan = CALL_PLANS.get(end)
    if plan is not None:
        name, fixed, views = plan
        for start, b in fixed:
            if buf[start:start + len(b)] != b:
                break
        else:
            return [name, [np.ndarray(shape, dt, buf, at) for dt, shape, at in views], {}], end
    if end < CALL_HEAD.size:
        return decode(buf, 0)
    tag, n, name_tag, size = CALL_HEAD.unpack_from(buf, 0)
    pos = CALL_HEAD.size + size
    if tag != 0x6c or n != 3 or name_tag != 0x73 or end <= pos or buf[pos] != 0x6c:
        return decode(buf, 0)
    name = str(buf[CALL_HEAD.size:pos], 'utf-8')
    count = U32.unpack_from(buf, pos + 1)[0]; pos += 5
    args = []
    views = []
    for _ in range(count):
        if buf[pos] == 0x61:
            v, pos = decode_array(buf, pos + 1)
            if v.nbytes:
                views.append((v.dtype, v.shape, pos - v.nbytes))
        else:
            v, pos = decode(buf, pos, 2)
        args.append(v)
    kwargs, pos = decode(buf, pos, 1)
    if pos == end and len(views) == count and type(kwargs) is dict and not kwargs:
        remember_call(buf, name, views)
    return [name, args, kwargs], pos

CALL_PLANS = {}  # request size -> (name, [(offset, bytes) outside the arrays' data], [(dtype, shape, offset)])

def remember_call(buf, name, views):
    fixed, at = [], 0
    for dt, shape, start in views:
        fixed.append((at, bytes(buf[at:start])))
        at = start + dt.itemsize * math.prod(shape)
    fixed.append((at, bytes(buf[at:])))
    if len(CALL_PLANS) >= 64:
        CALL_PLANS.clear()
    CALL_PLANS[len(buf)] = (name, fixed, views)

class ReplyMemoryError(EncodeError):
    pass

def size_text(n):
    return '%d bytes (%.1f MB)' % (n, n / 1048576)

class Encoder:
    # Small pieces are gathered (a list, joined into one bytearray every 4096 pieces) and large ones
    # (a str's bytes, an array's buffer) kept as they are, so the reply is written out without ever
    # being joined into one more copy.
    def __init__(self):
        self.parts = []
        self.small = []
        self.buf = bytearray()
        self.pos = 0
    def put(self, b):
        n = len(b)
        if n >= 65536:
            self.flush_small()
            self.parts.append(b)
        else:
            small = self.small
            small.append(b)
            if len(small) >= 4096:
                self.buf += b''.join(small); small.clear()
        self.pos += n
    def flush_small(self):
        if self.small:
            self.buf += b''.join(self.small); self.small.clear()
        if self.buf:
            self.parts.append(self.buf); self.buf = bytearray()
    def chunks(self):
        self.flush_small()
        return self.parts
    def value(self, v):
        if np is NO_NUMPY:
            bind_numpy(True)
        try:
            self.encode(v, 0)
        except MemoryError:
            raise ReplyMemoryError('MemoryError while encoding the reply, after %s of it'
                                   % size_text(self.pos)) from None
    def encode(self, v, depth):
        if depth > MAX_DEPTH:
            raise EncodeError('the value is nested more than %d levels deep' % MAX_DEPTH)
        if v is None: self.put(b'N')
        elif v is True or v is np.True_: self.put(b'T')
        elif v is False or v is np.False_: self.put(b'F')
        elif isinstance(v, (int, np.integer)):
            v = int(v)
            if not -(1 << 63) <= v < (1 << 63):
                raise EncodeError('integer %d does not fit in 64 bits' % v)
            self.put(b'i' + I64.pack(v))
        elif isinstance(v, (float, np.floating)): self.put(b'f' + F64.pack(float(v)))
        elif isinstance(v, str):
            try:
                b = v.encode('utf-8', 'surrogatepass')
            except MemoryError:
                raise ReplyMemoryError('MemoryError while encoding a str of %d characters for the reply '
                                       '(its UTF-8 copy did not fit)' % len(v)) from None
            self.put(b's' + U64.pack(len(b))); self.put(b)
        elif isinstance(v, (list, tuple)):
            self.put(b'l' + U32.pack(len(v)))
            for x in v: self.encode(x, depth + 1)
        elif isinstance(v, dict):
            self.put(b'd' + U32.pack(len(v)))
            for k, x in v.items():
                if not isinstance(k, str):
                    raise EncodeError('dict keys must be str, got %s' % type(k).__name__)
                self.encode(k, depth + 1); self.encode(x, depth + 1)
        elif isinstance(v, np.ndarray):
            dt = v.dtype.newbyteorder('<') if v.dtype.byteorder == '>' else v.dtype
            if dt.str not in DTYPES:
                raise EncodeError('numpy dtype %s is not supported (bool, int8-64, uint8-64, float32/64)' % v.dtype)
            if v.ndim > 32:
                raise EncodeError('array has more than 32 dimensions')
            try:
                a = np.asarray(v, dtype=dt, order='C')  # keeps a 0-d array 0-d (ascontiguousarray: 1-d)
            except MemoryError:
                raise ReplyMemoryError('MemoryError while encoding an array of %s for the reply (its '
                                       'contiguous copy did not fit)' % size_text(v.nbytes)) from None
            d = dt.str.encode('ascii')
            self.put(b'a' + bytes([len(d)]) + d + bytes([a.ndim]) + SHAPE[a.ndim].pack(*a.shape) +
                     U64.pack(a.nbytes))
            self.put(b'\0' * ((-self.pos) % 8))
            self.put(memoryview(a).cast('B') if a.nbytes else b'')
        else:
            raise EncodeError('values of type %s cannot be returned (use None, bool, int, float, str, '
                              'list, dict or a numpy array)' % type(v).__name__)
        if self.pos > settings['reply_bytes']:
            raise ReplyTooLarge('the reply exceeds %d bytes' % settings['reply_bytes'])

# [result, output] of a call whose result is None, a bool, an int or a float (exact types) and whose
# output is short: the bytes Encoder writes, made in one step.
SMALL_INT = struct.Struct('<IBxxxQBIBq')
SMALL_FLOAT = struct.Struct('<IBxxxQBIBd')
SMALL_TAG = struct.Struct('<IBxxxQBIB')
SMALL_END = {None: b'N', True: b'T', False: b'F'}
SMALL_OUTPUT = 4096
EMPTY_STR = b's' + bytes(8)

def small_reply(status, value):
    result, output = value
    if output == '' and type(output) is str:
        tail = EMPTY_STR
    elif type(output) is not str or len(output) > SMALL_OUTPUT:
        return None
    else:
        out = output.encode('utf-8', 'surrogatepass')
        tail = b's' + U64.pack(len(out)) + out
    t = type(result)
    if t is int:
        if not -(1 << 63) <= result < (1 << 63):
            return None
        n = 14 + len(tail)
        data = SMALL_INT.pack(MAGIC, status, n, 0x6c, 2, 0x69, result) + tail
    elif t is float:
        n = 14 + len(tail)
        data = SMALL_FLOAT.pack(MAGIC, status, n, 0x6c, 2, 0x66, result) + tail
    elif result is None or result is True or result is False:
        n = 6 + len(tail)
        data = SMALL_TAG.pack(MAGIC, status, n, 0x6c, 2, SMALL_END[result][0]) + tail
    else:
        return None
    if n > settings['reply_bytes']:
        return None
    return data

def send(status, value):
    if status == ST_OK:
        data = small_reply(status, value)
        if data is not None:
            write_all(data)
            return
    enc = Encoder()
    try:
        enc.value(value)
    except EncodeError as e:
        cause = 'memory' if isinstance(e, ReplyMemoryError) else 'reply-size' if isinstance(e, ReplyTooLarge) else 'value'
        status, enc, e = ST_ERR, Encoder(), str(e)
        enc.value([cause, e, '', value[-1] if isinstance(value, list) and value else ''])
    chunks = enc.chunks()
    head = HEADER.pack(MAGIC, status, enc.pos)
    if chunks and len(chunks[0]) < 65536:  # a small reply is one write (pcglab wakes once)
        head += chunks[0]
        chunks = chunks[1:]
    write_all(head)
    for c in chunks:
        write_all(c)

# Output of the generated code: print() goes to a bounded text buffer; anything written to fd 1
# or 2 (C code, os.write, subprocesses) goes to a memfd that is read back after each call.
class BoundedText:
    def __init__(self):
        self.parts = []; self.size = 0; self.dropped = 0
    def write(self, s):
        if not isinstance(s, str):
            raise TypeError('write() argument must be str, not %s' % type(s).__name__)
        room = settings['output_bytes'] - self.size
        if room > 0:
            self.parts.append(s[:room]); self.size += min(len(s), room)
        self.dropped += max(0, len(s) - max(room, 0))
        return len(s)
    def writelines(self, lines):
        for s in lines: self.write(s)
    def flush(self): pass
    def isatty(self): return False
    def fileno(self): return 1
    def take(self):
        s = ''.join(self.parts); d = self.dropped
        self.parts = []; self.size = 0; self.dropped = 0
        return s, d
    encoding = 'utf-8'
    errors = 'strict'

def become_worker():
    # The protocol loop's process: fd 1 and 2 go to the capture file, print() to the bounded text.
    global diag_fd, text, MAIN_PID
    MAIN_PID = os.getpid()
    diag_fd = os.dup(2)  # the pipe to pcglab, for the worker's own fatal errors
    # fd 1 is the capture memfd, made before the seccomp filter (which denies memfd_create) by
    # pcglab (a worker started directly) or by the zygote's setup child.
    os.dup2(1, 2)
    text = BoundedText()
    sys.stdout = sys.stderr = text
    sys.stdin = None
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past RLIMIT_FSIZE fail with EFBIG instead

def take_output():
    s, dropped = text.take() if text.parts or text.dropped else ('', 0)
    end = os.lseek(1, 0, os.SEEK_CUR)
    if end > 0:
        room = max(0, settings['output_bytes'] - len(s))
        raw = os.pread(1, min(end, room), 0)
        s += raw.decode('utf-8', 'replace')
        dropped += end - len(raw)
        os.ftruncate(1, 0); os.lseek(1, 0, os.SEEK_SET)
    if dropped:
        s += '\n[pcglab: output truncated, %d more characters dropped]' % dropped
    return s

def reap_leftovers():
    # Processes the call started and left running (the worker is not pid 1, so kill(-1) reaches
    # every other process of this PID namespace but bwrap's init). Only in the sandbox's own PID
    # namespace: outside it kill(-1) would reach every process of the user.
    if not settings.get('reap') or MAIN_PID != 2:  # called in the worker (serve checked the pid)
        return
    try:
        os.kill(-1, signal.SIGKILL)
        while True:
            os.waitpid(-1, 0)  # killed children would stay as zombies
    except (ProcessLookupError, PermissionError, ChildProcessError):
        pass  # nothing to kill, or every killed child reaped
    finally:
        pids_allocated()  # the counter's value after the sweep is the next check's reference

# The sweep above makes the kernel walk every task of the host (kill(-1) looks at each one for
# those of this namespace): most of a call's cost once the code is fast. It is skipped when no
# process or thread can have been created in the worker's PID namespace since the last check,
# which the namespace's pid counter (/proc/sys/kernel/ns_last_pid, the last pid handed out) shows:
# every clone(), fork, thread and vfork takes a pid, and pids are handed out in increasing order,
# wrapping past pid_max back to 300 (RESERVED_PIDS). The counter is back at the value it had only
# after a wrap, when every pid of [300, pid_max) not in use was handed out once: at least
# pid_max - 300 - nproc clones (at most nproc processes and threads are alive, RLIMIT_NPROC). A
# clone takes microseconds (fork ~50 us, a thread ~10 us); 100 ns is the bound used, so an interval
# shorter than (pid_max - 300 - nproc) x 100 ns (3.2 ms for pid_max 32768, 0.4 s for 4194304) with
# the same value saw no clone at all. Longer intervals, an unreadable counter, no process limit
# (nproc 0) or no PID namespace of the worker's own (--unsafe-no-sandbox) always sweep. Nobody in
# the sandbox can set the counter: writing it needs CAP_SYS_ADMIN and /proc/sys is read-only.
CLONE_NS_BOUND = 100
pid_counter = -1  # fd of the namespace's ns_last_pid, opened by handle_init in the sandbox
pid_counter_wrap_ns = 0  # the interval that could hold a wrap of the counter
pid_counter_seen = b''  # its last value, and when it was read (before the read)
pid_counter_time = 0

def open_pid_counter():
    global pid_counter, pid_counter_wrap_ns
    if not settings.get('reap') or MAIN_PID != 2:
        return
    try:
        with open('/proc/sys/kernel/pid_max', 'rb') as f:
            pid_max = int(f.read())
        fd = os.open('/proc/sys/kernel/ns_last_pid', os.O_RDONLY | os.O_CLOEXEC)
    except (OSError, ValueError):
        return  # every request sweeps
    pid_counter = fd
    pid_counter_wrap_ns = wrap_interval_ns(pid_max, settings['nproc'])
    pids_allocated()

def wrap_interval_ns(pid_max, nproc):
    # The shortest time in which the counter can come back to a value: pid_max - 300 - nproc clones.
    if nproc <= 0:
        return 0
    return max(0, pid_max - 300 - nproc) * CLONE_NS_BOUND

def pids_allocated():
    # False only when no pid was handed out in the namespace since the last call (see above).
    global pid_counter_seen, pid_counter_time
    if pid_counter < 0:
        return True
    start = time.monotonic_ns()
    try:
        value = os.pread(pid_counter, 32, 0)
    except OSError:
        value = b''
    same = value == pid_counter_seen and value and time.monotonic_ns() - pid_counter_time < pid_counter_wrap_ns
    pid_counter_seen, pid_counter_time = value, start
    return not same

USER_FILE = '<generated>'
module = None

def format_error(e):
    tb = e.__traceback__
    # Drop the worker's own frames: the traceback starts in the generated code.
    while tb is not None and tb.tb_frame.f_code.co_filename == '<string>':
        tb = tb.tb_next
    lines = traceback.format_exception(type(e), e, tb)
    return ''.join(lines)

def process_hint():
    if settings.get('nproc_unsafe'):
        return (' [process limit: at most %d more processes and threads of this user than when the worker '
                'started (--unsafe-no-sandbox)]' % settings['nproc_unsafe'])
    return ' [process limit: at most %d processes and threads in the sandbox]' % settings['nproc']

def hint(e):
    # Words that name the limit behind an OSError the sandbox causes.
    if isinstance(e, RuntimeError) and "can't start new thread" in str(e):
        return process_hint()
    if not isinstance(e, OSError):
        return ''
    n = e.errno
    if n == errno.EAGAIN and (settings['nproc'] > 0 or settings.get('nproc_unsafe')):
        return process_hint()
    if n == errno.EFBIG:
        return ' [file size limit of %d MB]' % settings.get('file_size_mb', 0)
    if n == errno.ENOSPC:
        return (' [/tmp and /dev/shm are private tmpfs of %d MB and %d MB, counted as the worker\'s memory]' %
                (settings.get('tmp_mb', 0), settings.get('shm_mb', 0)))
    if n == errno.EROFS:
        return ' [the sandbox file system is read-only except /tmp]'
    if n == errno.EAFNOSUPPORT:
        return ' [no network in the sandbox: only AF_UNIX sockets]'
    if n == errno.ENOENT and settings.get('reap'):
        return ' [the sandbox shows only the Python standard library, numpy and /tmp]'
    if n == errno.EPERM:
        return ' [denied by the sandbox]'
    return ''

def error_reply(e):
    cause = 'exception'
    if isinstance(e, MemoryError): cause = 'memory'
    elif isinstance(e, OSError) and e.errno == errno.ENOSPC and settings.get('tmp_mb'): cause = 'memory'
    elif isinstance(e, SyntaxError): cause = 'syntax'
    elif isinstance(e, RecursionError): cause = 'recursion'
    elif isinstance(e, ReplyTooLarge): cause = 'reply-size'
    elif isinstance(e, EncodeError): cause = 'value'
    msg = '%s: %s%s' % (type(e).__name__, e, hint(e)) if not isinstance(e, EncodeError) else str(e)
    tb = '' if isinstance(e, EncodeError) else format_error(e)
    return [cause, msg, tb]

def add_module(name, source, filename):
    parent, _, leaf = name.rpartition('.')
    if parent and parent not in sys.modules:
        add_module(parent, '', '<pcglab-preload %s>' % parent)
    m = types.ModuleType(name)
    m.__file__ = filename
    if not parent or True:
        m.__path__ = []  # lets `import name.sub` find submodules added later
    sys.modules[name] = m
    if parent:
        setattr(sys.modules[parent], leaf, m)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, 'exec'), m.__dict__)
    return m

def run_preload(preload, diag):
    # Each preload's name goes to pcglab's error pipe first: a start-up timeout names the one that hung.
    for name, source in list(preload) + [('', None)]:
        if preload:
            try:
                os.write(diag, ('pcglab-preload: %s\n' % name).encode('utf-8', 'replace'))
            except OSError:
                pass
        if source is not None:
            add_module(name, source, '<preload %s>' % name)

def handle_init(v):
    preload, opts = v
    settings.update(opts)
    run_preload(preload, diag_fd)
    if settings['nproc'] > 0:
        resource.setrlimit(resource.RLIMIT_NPROC, (settings['nproc'], settings['nproc']))
    open_pid_counter()
    if not FORKED:
        gc.collect()
    return None

def handle_load(v):
    global module, USER_FILE
    filename, source = v
    module = None
    USER_FILE = filename
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    m = types.ModuleType('__generated__')
    m.__file__ = filename
    sys.modules['__generated__'] = m
    exec(compile(source, filename, 'exec'), m.__dict__)
    module = m
    return None

def function(name):
    if module is None:
        raise NameError('no module is loaded')
    f = module.__dict__.get(name)
    if f is None:
        raise NameError('the code defines no %r' % name)
    if not callable(f):
        raise TypeError('%r is not callable' % name)
    return f

def handle_call(v):
    name, args, kwargs = v
    return function(name)(*args, **(kwargs or {}))

def handle_map(v):
    name, arg_lists = v
    f = function(name)
    return [f(*a) for a in arg_lists]

def handle_map_stacked(v):
    name, cols = v
    f = function(name)
    n = cols[0].shape[0]
    if len(cols) == 1:
        a, = cols
        return [f(a[i]) for i in range(n)]
    if len(cols) == 2:
        a, b = cols
        return [f(a[i], b[i]) for i in range(n)]
    return [f(*[c[i] for c in cols]) for i in range(n)]

HANDLERS = {OP_INIT: handle_init, OP_LOAD: handle_load, OP_CALL: handle_call, OP_MAP: handle_map,
            OP_MAP_STACKED: handle_map_stacked}

def serve():
    while True:
        try:
            op, body = read_request()
        except EOFError:
            return
        value, end = decode_call(body) if op == OP_CALL else decode(body, 0)
        if end != len(body):
            raise ProtocolError('trailing bytes in request')
        try:
            result = HANDLERS[op](value)
            # A process the code forked returned here: only the worker replies. No pid handed out
            # since the last request: this is the worker, and no process of the code is left.
            started = pids_allocated()
            if started and os.getpid() != MAIN_PID:
                os._exit(0)
        except BaseException as e:
            if os.getpid() != MAIN_PID:
                os._exit(0)
            if isinstance(e, SystemExit):
                e = RuntimeError('the code called sys.exit(%r)' % (e.code,))
            elif isinstance(e, KeyboardInterrupt):
                e = RuntimeError('KeyboardInterrupt')
            reply = error_reply(e)
            e = None
            if op != OP_INIT:
                reap_leftovers()
            reply.append(take_output())
            send(ST_ERR, reply)
            continue
        if op != OP_INIT and started:
            reap_leftovers()
        send(ST_OK, [result, take_output()])
        result = None

# ---- The zygote (pcglab's Zygote, zygote.h): one interpreter per preload set that imported numpy
# and ran the preload once, then forks each new worker. A fork request carries the worker's
# limits and three descriptors (its protocol socket, a status socket, its error pipe). The child
# enters namespaces of its own (user, PID, mount, network, IPC, UTS), so workers of one zygote
# cannot see, signal or reach each other or the zygote, and a worker killed takes only its own
# namespace along:
#   zygote -> setup child: unshare, id maps, forks and exits
#          -> init (pid 1 of the worker's PID namespace): fresh /proc, /tmp and /dev/shm; waits for the worker,
#             sends its wait status on the status socket and exits, or exits at once when pcglab
#             closes the status socket (that kills every process of the namespace)
#          -> worker (pid 2): new session, rlimits, no capabilities, no_new_privs, the seccomp filter,
#             then the ordinary protocol loop.
CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x20000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC = 1, 2, 4, 8, 32, 4096, 16384
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, PR_CAP_AMBIENT = 1, 4, 24, 38, 22, 47
OP_ZYGOTE_INIT, OP_FORK = 16, 17

def libc_call(libc, what, fn, *args):
    import ctypes
    if fn(*args) != 0:
        e = ctypes.get_errno()
        raise OSError(e, '%s: %s' % (what, os.strerror(e)))

def enter_namespaces(libc):
    # A fresh /proc may only be mounted where a fully visible one is: bwrap's read-only covers
    # of /proc/irq, /proc/bus, ... are lifted in a mount namespace of this process first.
    uid, gid = os.getuid(), os.getgid()
    libc_call(libc, 'unshare(mount)', libc.unshare, CLONE_NEWNS)
    for p in (b'/proc/sys', b'/proc/sysrq-trigger', b'/proc/irq', b'/proc/bus'):
        libc.umount2(p, MNT_DETACH)
    libc_call(libc, 'unshare', libc.unshare,
              CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS)
    with open('/proc/self/setgroups', 'w') as f: f.write('deny')
    with open('/proc/self/uid_map', 'w') as f: f.write('65534 %d 1' % uid)
    with open('/proc/self/gid_map', 'w') as f: f.write('65534 %d 1' % gid)

def mount_private(libc, tmp_mb, shm_mb):
    libc_call(libc, 'mount /proc', libc.mount, b'proc', b'/proc', b'proc', MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
    try:
        with open('/proc/sys/user/max_user_namespaces', 'w') as f: f.write('0')
    except OSError:
        pass  # the seccomp filter denies new user namespaces anyway
    for p in (b'/proc/sys', b'/proc/sysrq-trigger', b'/proc/irq', b'/proc/bus'):
        if os.path.exists(p):
            libc_call(libc, 'bind ' + p.decode(), libc.mount, p, p, None, MS_BIND | MS_REC, None)
            libc_call(libc, 'remount ' + p.decode(), libc.mount, p, p, None,
                      MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
    # /tmp and /dev/shm: empty, private to this worker, sized, gone with its mount namespace. The
    # zygote's /dev (bwrap's, read-only) holds only null, zero, full, random and urandom.
    for path, mb in ((b'/tmp', tmp_mb), (b'/dev/shm', shm_mb)):
        libc_call(libc, 'mount ' + path.decode(), libc.mount, b'tmpfs', path, b'tmpfs', MS_NOSUID | MS_NODEV,
                  ('size=%d,mode=1777' % (mb << 20)).encode())
    os.chdir('/tmp')

def drop_capabilities(libc):
    import ctypes
    for cap in range(64):
        libc.prctl(PR_CAPBSET_DROP, ctypes.c_ulong(cap), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
    libc.prctl(PR_CAP_AMBIENT, ctypes.c_ulong(4), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
    class CapHeader(ctypes.Structure):
        _fields_ = [('version', ctypes.c_uint32), ('pid', ctypes.c_int)]
    class CapData(ctypes.Structure):
        _fields_ = [('effective', ctypes.c_uint32), ('permitted', ctypes.c_uint32), ('inheritable', ctypes.c_uint32)]
    libc_call(libc, 'capset', libc.capset, ctypes.byref(CapHeader(0x20080522, 0)), (CapData * 2)())

def confine(libc, opts, seccomp_program):
    import ctypes
    mb = 1 << 20
    for res, value, extra in ((resource.RLIMIT_AS, opts['memory_mb'] * mb, 0),
                              (resource.RLIMIT_CPU, opts['cpu_seconds'], 1),
                              (resource.RLIMIT_FSIZE, opts['file_size_mb'] * mb, 0),
                              (resource.RLIMIT_NOFILE, opts['open_files'], 0),
                              (resource.RLIMIT_CORE, 0, 0)):
        resource.setrlimit(res, (value, value + extra))
    drop_capabilities(libc)
    libc_call(libc, 'dumpable', libc.prctl, PR_SET_DUMPABLE, ctypes.c_ulong(1), ctypes.c_ulong(0),
              ctypes.c_ulong(0), ctypes.c_ulong(0))
    libc_call(libc, 'no_new_privs', libc.prctl, PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), ctypes.c_ulong(0),
              ctypes.c_ulong(0), ctypes.c_ulong(0))
    class SockFprog(ctypes.Structure):
        _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_void_p)]
    program = ctypes.create_string_buffer(seccomp_program, len(seccomp_program))
    fprog = SockFprog(len(seccomp_program) // 8, ctypes.addressof(program))
    libc_call(libc, 'seccomp', libc.prctl, PR_SET_SECCOMP, ctypes.c_ulong(2), ctypes.byref(fprog),
              ctypes.c_ulong(0), ctypes.c_ulong(0))

def init_process(status_fd, worker_pid):
    # pid 1 of the worker's namespace: reaps what reaches it, reports the worker's end, and ends the
    # namespace when the worker ends or pcglab closes the status socket.
    import select
    wake_r, wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *a: None)
    ready = [wake_r]  # a first pass reaps a worker that ended before the handler was in place
    while True:
        if status_fd in ready:
            os._exit(0)
        try:
            os.read(wake_r, 4096)
        except BlockingIOError:
            pass
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                os._exit(0)
            if pid == 0:
                break
            if pid == worker_pid:
                try:
                    os.write(status_fd, I64.pack(status))
                except OSError:
                    pass
                os._exit(0)
        try:
            ready = select.select([status_fd, wake_r], [], [])[0]
        except InterruptedError:
            ready = []

def worker_child(opts, fds, seccomp_program):
    # The setup child of a fork request; returns only in the worker process (pid 2).
    import ctypes
    proto, status, err = fds
    os.dup2(err, 2)
    os.dup2(proto, 100); os.dup2(status, 101)
    os.closerange(3, 100); os.closerange(102, 1 << 20)
    proto, status = 100, 101
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    libc = ctypes.CDLL(None, use_errno=True)
    enter_namespaces(libc)
    if os.fork() != 0:
        os._exit(0)
    mount_private(libc, opts['tmp_mb'], opts['shm_mb'])
    # The init is not dumpable (the worker cannot open its /proc/1/mem, whatever the uid) and keeps
    # no capability; the worker makes itself dumpable again (its own /proc/self stays readable).
    libc_call(libc, 'dumpable', libc.prctl, PR_SET_DUMPABLE, ctypes.c_ulong(0), ctypes.c_ulong(0),
              ctypes.c_ulong(0), ctypes.c_ulong(0))
    # The worker waits until the init dropped its capabilities (the pipe's EOF), so no generated code
    # ever runs beside an init that still holds some.
    caps_dropped_r, caps_dropped_w = os.pipe()
    worker = os.fork()
    if worker != 0:
        os.close(proto)
        os.close(caps_dropped_r)
        drop_capabilities(libc)
        os.close(caps_dropped_w)
        init_process(status, worker)
    os.close(caps_dropped_w)
    os.read(caps_dropped_r, 1)
    os.close(caps_dropped_r)
    os.close(status)
    os.setsid()
    libc.prctl(PR_SET_PDEATHSIG, ctypes.c_ulong(signal.SIGKILL), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
    null = os.open('/dev/null', os.O_RDWR)
    capture = os.memfd_create('pcglab-output')  # fd 1 and 2 of the worker (become_worker)
    os.dup2(null, 0); os.dup2(capture, 1); os.dup2(proto, 3); os.dup2(proto, 4)
    os.closerange(5, 1 << 20)
    confine(libc, opts, seccomp_program)

def recv_request(ctl, maxfds):
    import socket
    head, fds, _, _ = socket.recv_fds(ctl, HEADER.size, maxfds)
    if not head:
        return None, None, fds
    while len(head) < HEADER.size:
        more = ctl.recv(HEADER.size - len(head))
        if not more:
            return None, None, fds
        head += more
    magic, op, n = HEADER.unpack(head)
    if magic != MAGIC:
        raise ProtocolError('bad zygote request header')
    body = bytearray()
    while len(body) < n:
        more = ctl.recv(n - len(body))
        if not more:
            return None, None, fds
        body += more
    return op, decode(body, 0)[0], fds

def zygote():
    import socket
    seccomp_program = b''
    while True:
        chunk = os.read(5, 65536)
        if not chunk:
            break
        seccomp_program += chunk
    os.close(5)
    ctl = socket.socket(fileno=3)
    os.close(4)
    op, value, _ = recv_request(ctl, 0)
    if op != OP_ZYGOTE_INIT:
        os._exit(1)
    try:
        run_preload(value[0], 2)
        reply = [None, '']
        status = ST_OK
    except BaseException as e:
        reply = error_reply(e) + ['']
        status = ST_ERR
    enc = Encoder(); enc.value(reply); body = b''.join(enc.chunks())
    ctl.sendall(HEADER.pack(MAGIC, status, len(body)) + body)
    if status != ST_OK:
        os._exit(1)
    gc.collect()
    gc.freeze()  # the forked workers share these pages instead of copying them on the next collection
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # setup children are reaped by the kernel
    while True:
        op, opts, fds = recv_request(ctl, 3)
        if op is None:
            os._exit(0)
        if op != OP_FORK or len(fds) != 3:
            for fd in fds: os.close(fd)
            continue
        pid = os.fork()
        if pid == 0:
            try:
                ctl.detach()
                worker_child(opts, fds, seccomp_program)
                return
            except BaseException:
                os.write(2, ('pcglab zygote: the worker could not be set up:\n' + traceback.format_exc()).encode('utf-8', 'replace')[-4000:])
                os._exit(125)
        for fd in fds: os.close(fd)

FORKED = AS_WORKER and 'zygote' in sys.argv[1:]

def main():
    if FORKED:
        zygote()  # returns only in a fresh worker process, its namespaces and limits in place
    become_worker()
    try:
        serve()
    except BaseException:
        os.write(diag_fd, ('pcglab worker failed:\n' + traceback.format_exc()).encode('utf-8', 'replace')[-4000:])
        os._exit(1)

if AS_WORKER:
    main()
