# pcglab's technical-validity crawl of a text game (BYTESIZED32's check_validity), run inside a
# sandbox worker (src/textgame/validity.cc loads this file and calls check_validity). pcglab's own
# code: the semantics follow the official checker (docs/textgame.md, "Technical validity"), the
# implementation is pcglab's.
#
#   load_game_module / find_game_class   the game's source as a module named after its file (its
#                                        tracebacks show its frames), and its game class: shared
#                                        with the game host
#   check_validity(filename, source, options) -> dict   the verdict
#
# Two crawls give the same verdict (flags, winnable, the first error in the official order, the
# number of sequences):
#   replay   the official loop: a stack of action sequences, each replayed on a fresh game from init
#   fast     the same depth-first order, but a node's children start from a snapshot of the node's
#            state (pickle, in the worker's memory) instead of replaying the prefix; identical
#            states (the same snapshot bytes at the same depth) share one subtree's count; the root's
#            subtrees are split over forked processes (both cores), combined in the official order.
import hashlib, os, sys, types, linecache, pickle, random, select, signal, struct, traceback

TIMEOUT_MESSAGE = ('Automatic evaluation timed out.  This could be due to an infinite loop in the code, '
                   'waiting for user input outside the main() function, or some other issue or '
                   'unusually-long-running procedure.')
CHECK_NAMES = ('TextGame', 'getTaskDescription', 'generatePossibleActions', 'step', 'calculateScore')


class CrawlTimeout(BaseException):
    """The whole check ran past its limit (a BaseException: a game's `except Exception` cannot hide it)."""


class Stop(Exception):
    """The crawl ends here: the verdict is complete (an error was recorded)."""


def load_game_module(filename, source, libraries=()):
    """Runs `source` as the module named after `filename` (boil-water.py -> boil-water), registered in
    sys.modules so that its classes pickle and its tracebacks name `filename`. `libraries`: (dotted
    name, source) pairs importable first (data.library.GameBasic for the refactored corpus)."""
    for name, lib_source in libraries:
        parts = name.split('.')
        for i in range(1, len(parts)):
            parent = '.'.join(parts[:i])
            if parent not in sys.modules:
                pkg = types.ModuleType(parent)
                pkg.__path__ = []
                sys.modules[parent] = pkg
                if i > 1:
                    setattr(sys.modules['.'.join(parts[:i - 1])], parts[i - 1], pkg)
        lib_file = name.replace('.', '/') + '.py'
        lib = types.ModuleType(name)
        lib.__file__ = lib_file
        sys.modules[name] = lib
        if len(parts) > 1:
            setattr(sys.modules['.'.join(parts[:-1])], parts[-1], lib)
        linecache.cache[lib_file] = (len(lib_source), None, lib_source.splitlines(True), lib_file)
        exec(compile(lib_source, lib_file, 'exec'), lib.__dict__)
    name = os.path.basename(filename)
    if name.endswith('.py'):
        name = name[:-3]
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    module = types.ModuleType(name)
    module.__file__ = filename
    sys.modules[name] = module
    exec(compile(source, filename, 'exec'), module.__dict__)
    return module


def find_game_class(module):
    """TextGame defined in the module; else the first class defined in it whose name ends in `Game`
    (the refactored corpus: `class BoilWaterGame(TextGame)`); else an imported TextGame. Raises
    AttributeError with Python's text when there is none, as the official import does."""
    own = [v for v in module.__dict__.values() if isinstance(v, type) and v.__module__ == module.__name__]
    for cls in own:
        if cls.__name__ == 'TextGame':
            return cls
    for cls in own:
        if cls.__name__.endswith('Game'):
            return cls
    return module.TextGame


def sample_actions(actions, cap, seed):
    """The official per-verb cap: actions grouped by their first word in order; a group larger than
    `cap` is replaced by random.Random(seed).sample(group, cap)."""
    by_verb = {}
    for action in actions:
        by_verb.setdefault(action.split()[0], []).append(action)
    out = []
    for group in by_verb.values():
        out += random.Random(seed).sample(group, cap) if len(group) > cap else group
    return out


def game_frames(e, filename):
    """The official error text of a crawl step: the traceback frames inside the game file, then str(e)."""
    frames = [f.strip() for f in traceback.format_tb(e.__traceback__) if filename in f]
    return '\n'.join(frames) + '\n' + str(e)


def exception_text(e):
    if isinstance(e, SystemExit):
        return 'the code called sys.exit(%r)' % (e.code,)
    return str(e)


class Crawl:
    """One check's state: the flags, counters and settings; the strategies below share it."""

    def __init__(self, filename, options):
        self.filename = filename
        self.mode = options.get('mode', 'official')
        self.seed = options.get('seed', 0)
        self.max_steps = options.get('max_steps', 3)
        self.cap = options.get('max_num_actions', 100)
        self.processes = max(1, options.get('processes', 2))
        self.roots = options.get('roots', 0)  # > 0: only the first `roots` root subtrees (benchmarks)
        self.checks = dict.fromkeys(CHECK_NAMES, False)
        self.winnable = False
        self.error = ''
        self.sequences = 0
        self.steps = 0
        self.cls = None
        self.snapshots = 'pickle'
        self.memo = {}
        self.memo_hits = 0

    def fail(self, check, message):
        if check:
            self.checks[check] = False
        self.error = message
        raise Stop()

    def new_game(self):
        game = self.cls(randomSeed=self.seed)
        game.generatePossibleActions()
        return game

    def step(self, game, action):
        """One step of the crawl; in fresh mode the actions regenerated after it (returned)."""
        self.steps += 1
        try:
            game.step(action)
            self.checks['step'] = True
        except (CrawlTimeout, Stop):
            raise
        except BaseException as e:
            self.fail('step', game_frames(e, self.filename) if isinstance(e, Exception) else exception_text(e))
        return self.regenerate(game) if self.mode == 'fresh' else None

    def regenerate(self, game):
        try:
            return game.generatePossibleActions()
        except (CrawlTimeout, Stop):
            raise
        except BaseException as e:
            self.fail('generatePossibleActions',
                      game_frames(e, self.filename) if isinstance(e, Exception) else exception_text(e))

    def node_end(self, game, depth, actions, before_expanding=None):
        """What the official loop does after a sequence's steps: a finished game counts as won or not;
        a running one below the depth limit returns its children (official: from actions generated
        now, after `before_expanding()`; fresh: `actions`, regenerated after the last step). An error
        outside the game's methods ends the check as the official bare `except` does, with its text."""
        try:
            if not game.gameOver:
                if depth < self.max_steps:
                    if before_expanding is not None:
                        before_expanding()
                    if self.mode != 'fresh':
                        actions = self.regenerate(game)
                    return sample_actions(actions, self.cap // 10, self.seed)
            elif game.gameWon:
                self.winnable = True
        except (Stop, CrawlTimeout):
            raise
        except BaseException as e:
            self.fail(None, exception_text(e))
        return []

    # ---- the official loop: replay every sequence from init --------------------------------------
    def crawl_replay(self, roots):
        stack = [[a] for a in roots]
        while stack:
            seq = stack.pop()
            self.sequences += 1
            game = self.new_game()
            actions = None
            for action in seq:
                actions = self.step(game, action)
            stack.extend(seq + [a] for a in self.node_end(game, len(seq), actions))

    # ---- the fast crawl: children start from a snapshot of their parent ---------------------------
    def snapshot(self, game, seq):
        if self.snapshots == 'pickle':
            try:
                data = pickle.dumps(game, pickle.HIGHEST_PROTOCOL)
                pickle.loads(data)
                return data
            except Exception:
                self.snapshots = 'replay'  # the game's state does not pickle: replay prefixes instead
        return tuple(seq)

    def restore(self, snap):
        if isinstance(snap, bytes):
            return pickle.loads(snap)
        game = self.new_game()
        for action in snap:
            game.step(action)
            if self.mode == 'fresh':
                game.generatePossibleActions()
        return game

    def visit(self, parent, seq):
        """The node `seq` (its last action applied to a copy of `parent`), then its subtree in the
        official order (children pushed in order, popped last first)."""
        self.sequences += 1
        game = self.restore(parent)
        actions = self.step(game, seq[-1])
        snap = []

        def take_snapshot():
            snap.append(self.snapshot(game, seq))

        children = self.node_end(game, len(seq), actions, take_snapshot)
        if not children:
            return
        snap = snap[0]
        key = hashlib.blake2b(snap, digest_size=16).digest() + bytes([len(seq)]) if isinstance(snap, bytes) else None
        if key is not None and key in self.memo:
            count, won = self.memo[key]
            self.memo_hits += 1
            self.sequences += count
            self.winnable = self.winnable or won
            return
        before, won_before = self.sequences, self.winnable
        self.winnable = False
        for action in reversed(children):
            self.visit(snap, seq + [action])
        if key is not None:
            self.memo[key] = (self.sequences - before, self.winnable)
        self.winnable = self.winnable or won_before

    def crawl_fast(self, roots):
        root = self.snapshot(self.new_game(), [])
        order = list(reversed(roots))  # the official stack pops the last root first
        if self.processes <= 1 or len(order) <= 1:
            for action in order:
                self.visit(root, [action])
            return
        self.crawl_parallel(root, order)

    def run_task(self, root, action):
        """One root subtree in a forked process: its counts and error, or where it stopped."""
        self.sequences = self.steps = self.memo_hits = 0
        self.winnable = False
        self.error = ''
        try:
            self.visit(root, [action])
            stopped = False
        except Stop:
            stopped = True
        return [self.sequences, self.steps, self.winnable, stopped, self.error, self.checks['step'],
                self.checks['generatePossibleActions'], self.memo_hits]

    def crawl_parallel(self, root, order):
        """The root's subtrees over forked processes: each takes the next root task from a pipe and
        sends back its result; the parent combines them in the official order and stops the
        processes once the tasks before the first error are known."""
        tasks_r, tasks_w = os.pipe()
        os.set_blocking(tasks_w, False)
        children = []
        try:
            for _ in range(min(self.processes, len(order))):
                result_r, result_w = os.pipe()
                pid = os.fork()
                if pid == 0:
                    os.close(result_r)
                    os.close(tasks_w)
                    self.serve_tasks(root, order, tasks_r, result_w)
                os.close(result_w)
                children.append((pid, result_r))
            os.close(tasks_r)
            tasks_r = -1
            results = self.collect(len(order), tasks_w, [fd for _, fd in children])
            tasks_w = -1  # collect closed it
        finally:
            for pid, fd in children:
                try:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                except (ProcessLookupError, ChildProcessError):
                    pass
                os.close(fd)
            for fd in (tasks_r, tasks_w):
                if fd >= 0:
                    os.close(fd)
        self.combine(results, order)

    def serve_tasks(self, root, order, tasks_r, result_w):
        code = 0
        try:
            while True:
                head = os.read(tasks_r, 4)
                if len(head) < 4:
                    break
                t = struct.unpack('<I', head)[0]
                data = pickle.dumps([t] + self.run_task(root, order[t]))
                data = struct.pack('<I', len(data)) + data
                while data:
                    data = data[os.write(result_w, data):]
        except BaseException:
            code = 1
        os._exit(code)

    def collect(self, n, tasks_w, fds):
        """The results of tasks 0..n-1 (None past the first that stopped the crawl)."""
        results = [None] * n
        buffers = dict.fromkeys(fds, b'')
        fed = done = 0
        need = n  # tasks whose results the verdict needs: up to the first that stopped
        while done < need:
            writers = [tasks_w] if tasks_w >= 0 and fed < need else []
            if not buffers:
                raise RuntimeError("the crawl's processes ended before root action %d of %d was checked"
                                   % (done + 1, n))
            readable, writable, _ = select.select(list(buffers), writers, [])
            if writable:
                chunk = b''.join(struct.pack('<I', t) for t in range(fed, min(need, fed + 1024)))
                try:
                    fed += os.write(tasks_w, chunk) // 4
                except BlockingIOError:
                    pass
                if fed == n:
                    os.close(tasks_w)
                    tasks_w = -1
            for fd in readable:
                data = os.read(fd, 1 << 20)
                if not data:
                    del buffers[fd]
                    continue
                buf = buffers[fd] + data
                while len(buf) >= 4 and len(buf) >= 4 + struct.unpack_from('<I', buf)[0]:
                    size = struct.unpack_from('<I', buf)[0]
                    r = pickle.loads(buf[4:4 + size])
                    buf = buf[4 + size:]
                    results[r[0]] = r[1:]
                    if r[4]:  # stopped: later tasks do not count
                        need = min(need, r[0] + 1)
                buffers[fd] = buf
            while done < need and results[done] is not None:
                done += 1
        if tasks_w >= 0:
            os.close(tasks_w)
        return results[:need]

    def combine(self, results, order):
        for sequences, steps, won, stopped, error, step_ok, gpa_ok, hits in results:
            self.sequences += sequences
            self.steps += steps
            self.memo_hits += hits
            self.winnable = self.winnable or won
            self.checks['step'] = self.checks['step'] or step_ok
            if stopped:
                self.checks['step'] = step_ok
                self.checks['generatePossibleActions'] = gpa_ok
                self.error = error
                raise Stop()

    # ---- the root: the official order of checks --------------------------------------------------
    def check(self, source, libraries, strategy):
        try:
            module = load_game_module(self.filename, source, libraries)
            self.cls = find_game_class(module)
        except (CrawlTimeout, Stop):
            raise
        except BaseException as e:
            self.fail(None, exception_text(e))
        game = self.root_call('TextGame', lambda: self.cls(randomSeed=self.seed))
        self.root_call('getTaskDescription', game.getTaskDescription)
        self.root_call('calculateScore', game.calculateScore)
        actions = self.root_call('generatePossibleActions', lambda: self.first_actions(game))
        try:
            roots = sample_actions(actions, self.cap, self.seed)
            if self.roots > 0:  # the first subtrees in the official order (the stack pops the last first)
                roots = roots[-self.roots:]
        except BaseException as e:
            self.fail(None, exception_text(e))
        try:
            (self.crawl_replay if strategy == 'replay' else self.crawl_fast)(roots)
        except (CrawlTimeout, Stop):
            raise
        except BaseException as e:  # the game failed outside the official try blocks (a later init)
            self.fail(None, exception_text(e))

    def first_actions(self, game):
        actions = game.generatePossibleActions()
        self.initial_actions = len(actions)
        return actions

    def root_call(self, check, call):
        try:
            value = call()
            self.checks[check] = True
            return value
        except (CrawlTimeout, Stop):
            raise
        except BaseException as e:
            self.fail(None, exception_text(e))


def raise_timeout(signum, frame):
    raise CrawlTimeout()


def check_validity(filename, source, options=None):
    """The verdict of the game `source` (named `filename`): a dict with checks (the five flags),
    runnable, winnable, initial_actions, error, sequences, steps (step calls), timed_out, snapshots
    ('pickle' or 'replay'), memo_hits. options: mode ('official' | 'fresh'), seed, max_steps,
    max_num_actions, timeout_s, strategy ('fast' | 'replay'), processes, libraries ([name, source])."""
    options = options or {}
    crawl = Crawl(filename, options)
    crawl.initial_actions = 0
    timed_out = runnable = False
    old = signal.signal(signal.SIGALRM, raise_timeout)
    signal.setitimer(signal.ITIMER_REAL, float(options.get('timeout_s', 900)))
    try:
        try:
            crawl.check(source, [tuple(x) for x in options.get('libraries', [])], options.get('strategy', 'fast'))
            runnable = True
        except Stop:
            pass
        except RecursionError as e:
            crawl.error = str(e)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except CrawlTimeout:
        timed_out = True
        crawl.error = TIMEOUT_MESSAGE
    finally:
        signal.signal(signal.SIGALRM, old)
    return {'checks': crawl.checks, 'runnable': runnable, 'winnable': crawl.winnable,
            'initial_actions': crawl.initial_actions, 'error': crawl.error, 'sequences': crawl.sequences,
            'steps': crawl.steps, 'timed_out': timed_out, 'snapshots': crawl.snapshots,
            'memo_hits': crawl.memo_hits}
