# pcglab's technical-validity crawl of a text game (BYTESIZED32's check_validity), run inside a
# sandbox worker (src/textgame/validity.cc loads this file and calls check_validity). pcglab's own
# code: the semantics follow the official checker (docs/textgame.md, "Technical validity"), the
# implementation is pcglab's.
#
#   load_game_module / find_game_class   the game's source as a module named after its file (its
#                                        tracebacks show its frames), and its game class: the game
#                                        host's loader (gameload.py, which pcglab puts before this
#                                        file in the worker's script)
#   check_validity(filename, source, options) -> dict   the verdict
#
# Two crawls give the same verdict (flags, winnable, the first error in the official order, the
# number of sequences):
#   replay   the official loop: a stack of action sequences, each replayed on a fresh game from init
#   fast     the same depth-first order, but a node's children start from a snapshot of the node's
#            state (pickle, in the worker's memory) instead of replaying the prefix; identical
#            states (the same snapshot bytes at the same depth) share one subtree's count; the root's
#            subtrees are split over forked processes (both cores), combined in the official order;
#            in fresh mode a leaf's (or node's) regeneration is reused from an earlier one whose
#            whole state after its step was the same: see Crawl.leaf and Crawl.node_step.
import copyreg, hashlib, io, os, re, sys, pickle, random, select, signal, struct, time, traceback

if 'game_class_of' not in globals():  # a file of its own (the Python tests): the shared loader beside it
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gameload import add_module, game_class_of

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
    name, source) pairs importable first (data.library.GameBasic for the refactored corpus). The
    loader is the game host's (gameload.py)."""
    for name, lib_source in libraries:
        add_module(name, name.replace('.', '/') + '.py', lib_source)
    name = os.path.basename(filename)
    if name.endswith('.py'):
        name = name[:-3]
    return add_module(name, filename, source)


def find_game_class(module):
    """The game host's choice (gameload.game_class_of: TextGame defined in the module, else the first
    class defined in it whose name ends in `Game`, by name); else an imported TextGame. Raises
    AttributeError with Python's text when there is none, as the official import does."""
    cls = game_class_of(module, module.__name__)
    return cls if cls is not None else module.TextGame


def reduce_random(r):
    """Pickles a random.Random as Random.__new__(Random, 0) plus its state: the default reduction
    calls Random(), which seeds from os.urandom before the state is set (~13% of a snapshot's load).
    The same generator state and gauss_next (Random.__getstate__), so the same draws."""
    return (copyreg.__newobj__, (random.Random, 0), r.__getstate__())


SNAPSHOT_TABLE = copyreg.dispatch_table.copy()
SNAPSHOT_TABLE[random.Random] = reduce_random  # exact type only: a subclass keeps its own reduction


def dump_state(game):
    """A game's snapshot bytes (pickle, with SNAPSHOT_TABLE's reductions)."""
    out = io.BytesIO()
    pickler = pickle.Pickler(out, pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = SNAPSHOT_TABLE
    pickler.dump(game)
    return out.getvalue()


class SharedPickler(pickle.Pickler):
    """Pickles the random.Random objects (exact type) as references to `shared` (object, state) pairs."""

    def persistent_id(self, obj):
        if obj.__class__ is random.Random:
            for i, (known, _) in enumerate(self.shared):
                if known is obj:
                    return i
            self.shared.append((obj, obj.getstate()))
            return len(self.shared) - 1
        return None


class SharedUnpickler(pickle.Unpickler):
    def persistent_load(self, pid):
        return self.objects[pid]


def dump_shared(game, shared):
    out = io.BytesIO()
    pickler = SharedPickler(out, pickle.HIGHEST_PROTOCOL)
    pickler.shared = shared
    pickler.dump(game)
    return out.getvalue()


# A default repr in a game's state (`<hang-painting.Nail object at 0x7f4cd6a54450>` in an observation
# string, a function's, a generator's, a bound method's) shows a memory address: where the allocator put
# the object in this process, which depends on the process's whole history (forked units' results
# arriving, the garbage collector). The crawl's state keys (state_digest) read every such address as
# one placeholder, so that two states alike but for the addresses their strings show are the same
# state, in every run: the crawl's work (steps, memo_hits) is a function of the game alone. The
# assumption (as for id(), InPlaceLeaves): a game does not act on the address its reprs show.
ADDRESS = re.compile(rb' at 0x[0-9a-f]+>')


def address_free(data):
    """Pickle bytes with every repr's address replaced by a placeholder (only for hashing)."""
    return ADDRESS.sub(b' at 0x?>', data) if b' at 0x' in data else data


def state_digest(data):
    """The key of a state's pickle bytes: their digest, addresses in reprs read as one (ADDRESS)."""
    return hashlib.blake2b(address_free(data), digest_size=16).digest()


SEEDED = {}  # seed -> the state of random.Random(seed): setstate is cheaper than seeding again


def sample_actions(actions, cap, seed):
    """The official per-verb cap: actions grouped by their first word in order; a group larger than
    `cap` is replaced by random.Random(seed).sample(group, cap)."""
    by_verb = {}
    for action in actions:
        by_verb.setdefault(action.split()[0], []).append(action)
    out = []
    for group in by_verb.values():
        if len(group) > cap:
            r = random.Random()
            if seed not in SEEDED:
                SEEDED[seed] = random.Random(seed).getstate()
            r.setstate(SEEDED[seed])
            group = r.sample(group, cap)
        out += group
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
        self.in_place = options.get('in_place', True)  # False: plain copies only (tests, benchmarks)
        self.in_place_nodes = 0  # nodes whose children got copies reset in place (this process)
        # Fresh mode: a leaf's regeneration reused from an earlier leaf of the same state (Crawl.leaf).
        # False: regenerate at every node; 'always': a key for every leaf, also where it does not pay.
        self.reuse_actions = options.get('reuse_actions', True)
        self.gauge = ReuseGauge(adaptive=self.reuse_actions != 'always')
        self.leaf_memo = {}  # digest of a leaf's state after its step -> the leaf's winnable
        self.twins = {}  # digest of a node's state after its step and its depth -> its memo key
        self.actions_reused = 0  # leaves and nodes whose regeneration was reused (all processes)
        self.stop_kind = None
        self.units = None
        self.verified = set()

    def fail(self, check, message):
        if check:
            self.checks[check] = False
        self.stop_kind = check
        self.error = message
        raise Stop()

    def new_game(self):
        game = self.cls(randomSeed=self.seed)
        game.generatePossibleActions()
        return game

    def step(self, game, action):
        """One step of the crawl; in fresh mode the actions regenerated after it (returned)."""
        self.step_only(game, action)
        return self.regenerate(game) if self.mode == 'fresh' else None

    def step_only(self, game, action):
        self.steps += 1
        try:
            game.step(action)
            self.checks['step'] = True
        except (CrawlTimeout, Stop):
            raise
        except BaseException as e:
            self.fail('step', game_frames(e, self.filename) if isinstance(e, Exception) else exception_text(e))

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
        except (Stop, CrawlTimeout, MemoHit):
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
        """The node's state for its children: pickle bytes, or the action prefix to replay when the
        game's state does not pickle (a lambda, a generator, a file in an attribute). The first
        snapshot of each kind of node (depth) is read back once, to find one that pickles but does
        not load."""
        if self.snapshots == 'pickle':
            try:
                data = dump_state(game)
                if len(seq) not in self.verified:
                    pickle.loads(data)
                    self.verified.add(len(seq))
                return data
            except Exception:
                self.snapshots = 'replay'  # replay prefixes from now on
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

    def restorer(self, snap, children):
        """A function giving a fresh copy of the node `snap` for each of its `children` in turn (each
        child is done with its copy before the next asks): the node reset in place (InPlaceLeaves)
        when it has several children, else a copy per child."""
        if self.in_place and children >= 4 and isinstance(snap, bytes):
            in_place = InPlaceLeaves.of(snap)
            if in_place is not None:
                self.in_place_nodes += 1
                return in_place.restore
        return lambda: self.restore(snap)

    def visit(self, parent, seq, tally):
        """The node `seq` (its last action applied to `parent()`, a fresh copy of its parent), then
        its subtree in the official order (children pushed in order, popped last first), recorded in
        `tally`. The children of a node one step above the depth limit (leaves) go out as one Unit; a
        node whose state (snapshot bytes and depth) was seen before shares that node's subtree."""
        tally.append(1)
        game = parent()
        snap, key, before = [], [], []

        def before_expanding():  # the node's snapshot, and its earlier twin's subtree if there is one
            snap.append(self.snapshot(game, seq))
            if isinstance(snap[0], bytes):
                key.append(state_digest(snap[0]) + b'%d' % len(seq))
                if before:
                    remember(self.twins, before[0], key[0])
                if key[0] in self.memo:
                    raise MemoHit()

        try:
            actions = self.node_step(game, seq, parent, before, key)
            self.winnable = False
            children = self.node_end(game, len(seq), actions, before_expanding)
        except Stop:
            tally.append(('stop', self.stop_kind, self.error))
            raise
        except MemoHit:
            self.memo_hits += 1
            tally.append(self.memo[key[0]])
            return
        if self.winnable:
            tally.append('won')
        if not children:
            return
        snap = snap[0]
        key = key[0] if key else None
        if len(seq) + 1 >= self.max_steps:
            sub = self.units.submit(snap, len(seq), children)
            tally.append(sub)
            self.units.check()
        else:
            sub = []
            tally.append(sub)
            parent = self.restorer(snap, len(children))
            for action in reversed(children):
                self.visit(parent, seq + [action], sub)
        if key is not None:
            self.memo[key] = sub

    def node_step(self, game, seq, parent, before, key):
        """A node's step; in fresh mode the actions regenerated after it (returned). In fresh mode a
        node whose state after the step (Crawl.leaf_key, and the depth: in `before`) is an earlier
        node's, whose subtree is known, is that node's twin without regenerating: MemoHit, with the
        twin's memo key in `key` (the same state regenerates alike, so the same snapshot follows)."""
        if self.mode != 'fresh' or not self.reuse_actions:
            return self.step(game, seq[-1])
        self.step_only(game, seq[-1])
        in_place = in_place_of(parent)
        digest = self.leaf_key(game, in_place)
        if digest is not None:
            before.append(digest + b'%d' % len(seq))
            twin = self.twins.get(before[0])
            if twin is not None and twin in self.memo:
                self.actions_reused += 1
                key.append(twin)
                raise MemoHit()
        if in_place is not None:
            in_place.unchanged = False  # the regeneration may change the node's shared dictionary
        return self.regenerate(game)

    def run_leaves(self, snap, depth, actions):
        """A Unit's work: the leaf children of one node, in the official order. Returns (sequences,
        winnable, step calls, stop kind or None, error)."""
        count, won = 0, False
        steps, reused = self.steps, self.actions_reused
        restore = self.leaf_restorer(snap, len(actions))
        in_place = in_place_of(restore)
        for action in reversed(actions):
            count += 1
            try:
                self.leaf(restore(), action, depth + 1, in_place)
                won = won or self.winnable
            except Stop:
                return (count, won, self.steps - steps, self.stop_kind, self.error, self.actions_reused - reused)
        return (count, won, self.steps - steps, None, '', self.actions_reused - reused)

    def leaf(self, game, action, depth, in_place=None):
        """A leaf (a node at the depth limit): its step, then what the official loop does after it,
        setting self.winnable. In fresh mode that is regenerating the actions (whose dictionary a leaf
        does not use: only an error in it, and gameOver and gameWon after it, count), the bulk of a
        large corpus game's crawl. A game is deterministic for its state (the crawl's assumption, as
        the official replay's), so two leaves whose whole state after the step is the same, the same
        snapshot bytes (every attribute, the generators' states, the stale action dictionary
        included), regenerate alike: the second takes the first's winnable. A leaf whose
        regeneration raised is not remembered: it ended the check. `in_place`: the InPlaceLeaves the
        leaf was restored by, whose cheaper key (InPlaceLeaves.leaf_key) is tried first. Where the keys
        cost more than the regenerations they save (a game whose regeneration is cheap), the gauge
        pauses them (ReuseGauge)."""
        self.winnable = False
        if self.mode != 'fresh' or not self.reuse_actions or not self.gauge.keying():
            self.node_end(game, depth, self.step(game, action))
            return
        self.step_only(game, action)
        start = time.perf_counter()
        key = self.leaf_key(game, in_place)
        keyed = time.perf_counter()
        if key is not None and key in self.leaf_memo:
            self.actions_reused += 1
            self.winnable = self.leaf_memo[key]
            self.gauge.record(keyed - start)
            return
        if in_place is not None:
            in_place.unchanged = False  # the regeneration may change the node's shared dictionary
        actions = self.regenerate(game)
        self.gauge.record(keyed - start, time.perf_counter() - keyed)
        self.node_end(game, depth, actions)
        if key is not None:
            remember(self.leaf_memo, key, self.winnable)

    def leaf_key(self, game, in_place=None):
        """A digest of the game's whole state: its snapshot bytes (b'F'), or, for a leaf restored in
        place whose state still holds the node's action dictionary unchanged, InPlaceLeaves.leaf_key's
        cheaper equivalent (b'S'); None when the state does not pickle (then no leaf of this crawl is
        reused)."""
        try:
            if in_place is not None:
                data = in_place.leaf_key(game)
                if data is not None:
                    return state_digest(data)
            return state_digest(b'F' + dump_state(game))
        except (CrawlTimeout, Stop):
            raise
        except Exception:
            self.reuse_actions = False
            return None

    def leaf_restorer(self, snap, leaves):
        """A function giving a fresh copy of the node `snap` for each of its leaf children, in turn: each
        copy is dropped before the next is made (run_leaves). First choice: the node's objects reset in
        place (InPlaceLeaves), which shares the node's action dictionary between the leaves; else the
        copies share only the node's random.Random objects: one live object each, shared by the copies,
        is set back to the node's generator state (and emptied of attributes, as a pickled copy is)
        before each copy is made. That is ~30% of a copy's cost (unpickling a Random's 625 words) for
        the corpus's `self.random = random.Random(seed)`. The same state for every leaf as a plain copy."""
        if not isinstance(snap, bytes) or leaves < 2:
            return lambda: self.restore(snap)
        if self.in_place and leaves >= 4:
            in_place = InPlaceLeaves.of(snap)
            if in_place is not None:
                self.in_place_nodes += 1
                return in_place.restore
        try:
            shared = []
            data = dump_shared(pickle.loads(snap), shared)
        except Exception:
            return lambda: self.restore(snap)
        if not shared:
            return lambda: pickle.loads(snap)
        objects = [obj for obj, _ in shared]

        def restore():
            for obj, state in shared:
                obj.__dict__.clear()
                obj.setstate(state)
            unpickler = SharedUnpickler(io.BytesIO(data))
            unpickler.objects = objects
            return unpickler.load()
        return restore

    def crawl_fast(self, roots):
        root = self.snapshot(self.new_game(), [])
        top = []
        self.units = Units(self) if self.processes <= 1 else ForkedUnits(self, self.processes)
        try:
            try:
                if self.max_steps <= 1:
                    top.append(self.units.submit(root, 0, roots))
                    self.units.check()
                else:
                    parent = self.restorer(root, len(roots))
                    for action in reversed(roots):  # the official stack pops the last root first
                        self.visit(parent, [action], top)
            except (Stop, UnitStopped):
                pass
            self.units.finish()
        finally:
            self.units.close()
        acc = [0, False, 0]
        stop = resolve(top, acc, set())
        self.sequences, self.winnable, self.steps = acc  # the steps up to the first error (resolve)
        self.actions_reused += self.units.reused
        # The flags as the replay crawl leaves them, from the combined result alone: fail() clears a
        # flag at once, also for an error the parent met after an earlier one that a forked unit had
        # not reported yet (which does not count), and the units' successful steps are not this
        # process's. The root's checks passed; a step succeeded when a sequence was counted (a later
        # error comes after its step) unless the first error is a step's.
        self.checks['generatePossibleActions'] = True
        self.checks['step'] = self.sequences > 0
        if stop is not None:
            self.stop_kind, self.error = stop
            if self.stop_kind:
                self.checks[self.stop_kind] = False
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
        self.root_call('getTaskDescription', lambda: game.getTaskDescription())
        self.root_call('calculateScore', lambda: game.calculateScore())
        actions = self.root_call('generatePossibleActions', lambda: self.first_actions(game))
        try:
            roots = sample_actions(actions, self.cap, self.seed)
            if self.roots > 0:  # the first subtrees in the official order (the stack pops the last first)
                roots = roots[-self.roots:]
        except (CrawlTimeout, Stop):
            raise
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


class ReuseGauge:
    """Whether a leaf's key pays for itself (Crawl.leaf): over each window of keyed leaves, the time the
    hits saved (hits times the mean regeneration) against the time the keys took; where the saving is
    under 3/4 of the keys' time (a game whose regeneration is cheap: lit-lightbulb's ~0.12 ms against
    ~0.13 ms per key), the next PAUSE leaves get no key, then a window measures again (the margin keeps
    a game whose keys pay a little, multimeter's, from pausing on one noisy window). Only the work
    depends on it, never the verdict. adaptive=False: never paused (tests)."""
    WINDOW, PAUSE = 512, 4096

    def __init__(self, adaptive=True):
        self.adaptive = adaptive
        self.paused = 0
        self.pauses = 0
        self.start_window()

    def start_window(self):
        self.keys = self.hits = self.regenerations = 0
        self.key_seconds = self.regeneration_seconds = 0.0

    def keying(self):
        if self.paused:
            self.paused -= 1
            return False
        return True

    def record(self, key_seconds, regeneration_seconds=None):
        """One keyed leaf: its key's time, and its regeneration's (None: a hit)."""
        self.keys += 1
        self.key_seconds += key_seconds
        if regeneration_seconds is None:
            self.hits += 1
        else:
            self.regenerations += 1
            self.regeneration_seconds += regeneration_seconds
        if self.keys >= self.WINDOW:
            if (self.adaptive and self.regenerations
                    and self.hits * self.regeneration_seconds / self.regenerations < 0.75 * self.key_seconds):
                self.paused = self.PAUSE
                self.pauses += 1
            self.start_window()


def in_place_of(restorer):
    """The InPlaceLeaves whose bound method `restorer` is, or None (a plain-copy restorer)."""
    owner = getattr(restorer, '__self__', None)
    return owner if owner.__class__ is InPlaceLeaves else None


MEMO_SIZE = 200000  # states remembered per table and process (Crawl.leaf, node_step): ~100 bytes each


def remember(table, key, value):
    if len(table) >= MEMO_SIZE:
        table.clear()  # bounds the memory; reuse starts again
    table[key] = value


HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement
PLAIN_VALUES = (str, int, float, bool, type(None), bytes)
OBJECT_METHODS = ('__reduce_ex__', '__reduce__', '__getstate__', '__eq__', '__hash__', '__copy__',
                  '__deepcopy__')


def plain_class(cls):
    """A class whose instances pickle as their __dict__ (the default reduction, no __slots__, no
    __setstate__), compare and hash by identity, and derive only from such classes and object: an
    instance is then fully restored by giving it its class and a copy of its __dict__."""
    if type(cls) is not type or cls.__mro__[-1] is not object:
        return False
    for base in cls.__mro__[:-1]:
        if not base.__flags__ & HEAPTYPE or '__slots__' in base.__dict__ or '__setstate__' in base.__dict__:
            return False
    return all(getattr(cls, name, None) is getattr(object, name, None) for name in OBJECT_METHODS)


class NotInPlace(Exception):
    """The node's state is not one InPlaceLeaves resets (its leaves use plain copies)."""


class InPlaceLeaves:
    """The leaves of one node from one private copy of it, reset in place before each leaf instead of
    a new copy per leaf (run_leaves drops each leaf before the next). The copy's objects (instances of
    plain classes, plain_class) keep their identity; before each leaf each gets back its class and a
    fresh copy of the node's __dict__ (one unpickling of the objects' attributes, the objects themselves
    referenced by index), and its random.Random objects their generator state, as leaf_restorer's
    shared generators. The game's action dictionary (`possibleActions`, the bulk of a corpus game's
    state: hang-painting's 1,611 actions are 95% of its snapshot) is not copied: the leaves share it,
    and it is compared with a copy of its contents before each leaf; a leaf that changed it makes the
    rest of the node's leaves plain copies. Sharing is safe only when nothing else in the state refers
    to the dictionary or to a list inside it (checked), and when its values are plain values, the
    state's objects, and lists and tuples of those (checked): then a leaf sees exactly what a fresh
    copy of the node holds. A state with anything else (an instance of a class with __slots__, its own
    __reduce__, __eq__ or __hash__, a subclass of a built-in type) is not reset in place."""

    @classmethod
    def of(cls, snap):
        try:
            return cls(snap)
        except NotInPlace:
            return None
        except Exception:  # anything unusual in the state: plain copies, as before
            return None

    def __init__(self, snap):
        self.snap = snap
        self.game = pickle.loads(snap)
        actions = self.game.__dict__.get('possibleActions')
        self.actions = actions if actions.__class__ is dict else None
        self.objects, self.randoms = collect_objects(self.game, self.actions)
        index = {id(obj): i for i, obj in enumerate(self.objects)}
        randoms = {id(r): ('r', i) for i, r in enumerate(self.randoms)}

        class StatePickler(pickle.Pickler):
            def persistent_id(self, obj):
                i = index.get(id(obj))
                if i is not None:
                    return i
                if obj.__class__ is random.Random:
                    return randoms[id(obj)]
                if obj is actions and actions is not None:
                    return 'actions'
                return None

        out = io.BytesIO()
        pickler = StatePickler(out, pickle.HIGHEST_PROTOCOL)
        pickler.dump([(obj.__class__, dict(obj.__dict__)) for obj in self.objects])
        self.data = out.getvalue()
        self.random_states = [r.getstate() for r in self.randoms]
        if self.actions is not None:
            self.expected = copy_actions(self.actions, index, pickler.memo.copy())
        self.plain = None  # once a leaf changed the shared dictionary: plain copies
        self.unchanged = False  # the shared dictionary was compared since the last leaf's step (leaf_key)
        self.skeleton = None  # leaf_key's description of the shared dictionary (actions_skeleton)

    def restore(self):
        if self.plain is not None:
            return self.plain()
        if self.unchanged:  # leaf_key compared it after the last leaf's step, and nothing ran since
            self.unchanged = False
        elif self.actions is not None and self.actions != self.expected:
            self.plain = lambda: pickle.loads(self.snap)
            return self.plain()
        unpickler = StateUnpickler(io.BytesIO(self.data))
        unpickler.objects, unpickler.randoms, unpickler.actions = self.objects, self.randoms, self.actions
        states = unpickler.load()
        for obj, (klass, attributes) in zip(self.objects, states):
            if obj.__class__ is not klass:
                obj.__class__ = klass
            obj.__dict__ = attributes
        for r, state in zip(self.randoms, self.random_states):
            r.__dict__.clear()
            r.setstate(state)
        return self.game

    def leaf_key(self, game):
        """Bytes equal for two leaves exactly when their whole states after the step are alike as
        their snapshots (dump_state) are, but made without pickling the node's action dictionary (its
        bulk: 1.2 of 1.4 ms for wash-clothes' 2,179 actions) while the leaf still holds it unchanged as
        `game.possibleActions` and nowhere else: the state pickled with that attribute set to a
        placeholder, a digest of the dictionary's structure with the objects it refers to numbered
        (actions_skeleton, once per node), and where each of those objects is in the state's pickle
        (its memo position). None when the leaf's state is not so (then the snapshot bytes are the key).
        A comparison that holds lets the next restore skip its own (self.unchanged)."""
        actions = self.actions
        if (actions is None or game.__dict__.get('possibleActions') is not actions
                or actions != self.expected):
            return None
        self.unchanged = True
        if self.skeleton is None:
            self.skeleton, self.referenced, self.containers = actions_skeleton(actions)
        game.__dict__['possibleActions'] = STALE_ACTIONS  # the same place in the attributes' order
        try:
            out = io.BytesIO()
            pickler = pickle.Pickler(out, pickle.HIGHEST_PROTOCOL)
            pickler.dispatch_table = SNAPSHOT_TABLE
            pickler.dump(game)
        finally:
            game.__dict__['possibleActions'] = actions
        memo = pickler.memo.copy()  # id -> (position, object)
        if id(actions) in memo or not self.containers.isdisjoint(memo):
            return None  # the dictionary, or a list or tuple in it, is also elsewhere in the state
        positions = []
        for obj in self.referenced:
            entry = memo.get(id(obj))
            if entry is None:  # an object only the dictionary refers to: its attributes are not in out
                return None
            positions.append(entry[0])
        return b'S' + self.skeleton + struct.pack('<%dQ' % len(positions), *positions) + out.getvalue()


# Stands for the node's action dictionary in InPlaceLeaves.leaf_key's pickle: random bytes, which no
# game's attribute holds by chance.
STALE_ACTIONS = os.urandom(16)


def actions_skeleton(actions):
    """An action dictionary (of plain values, objects, and lists and tuples of those: InPlaceLeaves
    checks it) as (digest of its pickle with each object replaced by its number, the objects in that
    order, the ids of its lists and tuples)."""
    referenced, numbers = [], {}

    class SkeletonPickler(pickle.Pickler):
        def persistent_id(self, obj):
            klass = obj.__class__
            if klass in PLAIN_VALUES or klass is list or klass is tuple or klass is dict:
                return None
            number = numbers.get(id(obj))
            if number is None:
                number = numbers[id(obj)] = len(referenced)
                referenced.append(obj)
            return number

    out = io.BytesIO()
    pickler = SkeletonPickler(out, pickle.HIGHEST_PROTOCOL)
    pickler.dump(actions)
    containers = {i for i, (_, obj) in pickler.memo.copy().items() if obj.__class__ in (list, tuple)}
    return state_digest(out.getvalue()), referenced, containers


class StateUnpickler(pickle.Unpickler):
    def persistent_load(self, pid):
        if pid.__class__ is int:
            return self.objects[pid]
        if pid == 'actions':
            return self.actions
        return self.randoms[pid[1]]


def collect_objects(game, actions):
    """The instances of plain classes reachable from `game` (the game first) other than through the
    dictionary `actions`, and its random.Random objects (exact type), in pickling order; NotInPlace
    when the state holds an instance of another Python class."""
    objects, randoms, seen = [], [], set()

    class Collector(pickle.Pickler):
        def persistent_id(self, obj):
            if obj is actions:
                return 'actions'
            klass = obj.__class__
            if klass.__flags__ & HEAPTYPE and id(obj) not in seen and not isinstance(obj, type):
                seen.add(id(obj))
                if klass is random.Random:
                    randoms.append(obj)
                elif plain_class(klass):
                    objects.append(obj)
                else:
                    raise NotInPlace()
            return None

    collector = Collector(io.BytesIO(), pickle.HIGHEST_PROTOCOL)
    collector.dispatch_table = SNAPSHOT_TABLE
    collector.dump(game)
    if not objects or objects[0] is not game:
        raise NotInPlace()
    return objects, randoms


def copy_actions(actions, index, in_state):
    """A copy of the action dictionary to compare it with before each leaf (its lists and tuples
    copied, the state's objects kept), after checking that the leaves may share it: its values are
    plain values, the state's objects (`index`), and lists and tuples of those, and no list in it is
    also in the rest of the state (`in_state`: the ids the state's pickler memoised). The usual value,
    a list of argument lists of strings and objects, is checked and copied in one loop."""
    def copied(value):
        klass = value.__class__
        if klass in PLAIN_VALUES or id(value) in index:
            return value
        if klass is list:
            if id(value) in in_state:
                raise NotInPlace()
            return [copied(v) for v in value]
        if klass is tuple:
            return tuple([copied(v) for v in value])
        raise NotInPlace()

    out = {}
    for key, value in actions.items():
        fast = value.__class__ is list and id(value) not in in_state
        if fast:
            for args in value:
                if args.__class__ is not list or id(args) in in_state:
                    fast = False
                    break
                for x in args:
                    if x.__class__ is not str and id(x) not in index:
                        fast = False
                        break
                if not fast:
                    break
        out[key] = [args[:] for args in value] if fast else copied(value)
    return out


class MemoHit(Exception):
    """A node's state was seen before at its depth: its subtree is the earlier one's."""


class UnitStopped(Exception):
    """A Unit ended the check with an error: the crawl creates nothing after it."""


class Unit:
    __slots__ = ('id', 'result')

    def __init__(self, uid):
        self.id = uid
        self.result = None


def resolve(items, acc, counted, steps=True):
    """Adds a tally's sequences, winnable and step calls to acc = [sequences, winnable, steps] in the
    official order; returns (stop kind, error) at the first error, else None. Steps: each node's own
    (its 1) and each unit's, up to the first error, and a subtree's once (`counted`: the ids of the
    lists and units whose steps are in acc; a twin's subtree counts again in sequences only). So the
    steps are a function of the game: not the work that forked units or the parent did past the first
    error before they heard of it, which depends on timing."""
    for item in items:
        if item.__class__ is int:
            acc[0] += item
            if steps:
                acc[2] += item
        elif item.__class__ is list:
            first = steps and id(item) not in counted
            counted.add(id(item))
            stop = resolve(item, acc, counted, first)
            if stop is not None:
                return stop
        elif item.__class__ is Unit:
            count, won, unit_steps, kind, error = item.result[:5]
            acc[0] += count
            acc[1] = acc[1] or won
            if steps and id(item) not in counted:
                acc[2] += unit_steps
            counted.add(id(item))
            if kind is not None or error:
                return (kind, error)
        elif item == 'won':
            acc[1] = True
        else:
            return item[1:]
    return None


class Units:
    """Leaf units run at once in this process."""

    def __init__(self, crawl):
        self.crawl = crawl
        self.steps = 0  # the forked processes' step calls and reused leaves (Units: the crawl counts them)
        self.reused = 0
        self.count = 0
        self.stopped = False

    def submit(self, snap, depth, actions):
        unit = Unit(self.count)
        self.count += 1
        unit.result = self.crawl.run_leaves(snap, depth, actions)  # its steps counted by the crawl
        self.stopped = unit.result[3] is not None or bool(unit.result[4])
        return unit

    def check(self):
        """Raises UnitStopped once a unit reported an error."""
        if self.stopped:
            raise UnitStopped()

    def finish(self):
        pass

    def close(self):
        pass


class ForkedUnits(Units):
    """Leaf units run by forked processes (copies of this one after the root): each gets a unit's
    snapshot and actions on its own pipe and answers with the result; at most `depth` units are
    outstanding per process. Units are made in the official order, so once one reports an error,
    nothing made after it counts: the crawl stops, and waits only for the units before it."""

    def __init__(self, crawl, processes, depth=3):
        super().__init__(crawl)
        self.pending = {}  # unit id -> Unit, sent and unanswered
        self.first_error = None
        self.depth = depth
        self.workers = []
        for _ in range(processes):
            req_r, req_w = os.pipe()
            res_r, res_w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(req_w)
                os.close(res_r)
                for w in self.workers:
                    os.close(w['req']); os.close(w['res'])
                serve_units(crawl, req_r, res_w)
            os.close(req_r)
            os.close(res_w)
            self.workers.append({'pid': pid, 'req': req_w, 'res': res_r, 'busy': 0, 'buf': b''})

    def submit(self, snap, depth, actions):
        unit = Unit(self.count)
        self.count += 1
        self.poll(0)
        while True:
            self.check()
            free = [w for w in self.workers if w['busy'] < self.depth]
            if free:
                break
            self.poll(None)
        w = min(free, key=lambda w: w['busy'])
        data = pickle.dumps((unit.id, snap, depth, actions), pickle.HIGHEST_PROTOCOL)
        write_all(w['req'], struct.pack('<I', len(data)) + data)
        w['busy'] += 1
        self.pending[unit.id] = (unit, w)
        return unit

    def check(self):
        if self.first_error is not None:
            raise UnitStopped()

    def poll(self, timeout):
        fds = [w['res'] for w in self.workers if w['busy'] > 0]
        if not fds:
            return
        readable = select.select(fds, [], [], timeout)[0]
        for w in self.workers:
            if w['res'] not in readable:
                continue
            data = os.read(w['res'], 1 << 20)
            if not data:
                raise RuntimeError("a process of the validity crawl ended unexpectedly")
            w['buf'] += data
            while len(w['buf']) >= 4 and len(w['buf']) >= 4 + struct.unpack_from('<I', w['buf'])[0]:
                n = struct.unpack_from('<I', w['buf'])[0]
                uid, result = pickle.loads(w['buf'][4:4 + n])
                w['buf'] = w['buf'][4 + n:]
                unit, _ = self.pending.pop(uid)
                unit.result = result
                w['busy'] -= 1
                self.steps += result[2]
                self.reused += result[5]
                if (result[3] is not None or result[4]) and (self.first_error is None or uid < self.first_error):
                    self.first_error = uid

    def finish(self):
        while any(uid <= (self.first_error if self.first_error is not None else uid) for uid in self.pending):
            self.poll(None)

    def close(self):
        for w in self.workers:
            for fd in (w['req'], w['res']):
                os.close(fd)
            try:
                os.kill(w['pid'], signal.SIGKILL)
                os.waitpid(w['pid'], 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        self.workers = []


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def read_exactly(fd, n):
    parts = []
    while n > 0:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            return None
        parts.append(chunk)
        n -= len(chunk)
    return b''.join(parts)


def serve_units(crawl, req_r, res_w):
    """A forked process of the crawl: runs the units it is sent until its pipe closes."""
    code = 0
    try:
        while True:
            head = read_exactly(req_r, 4)
            if head is None:
                break
            uid, snap, depth, actions = pickle.loads(read_exactly(req_r, struct.unpack('<I', head)[0]))
            result = crawl.run_leaves(snap, depth, actions)
            data = pickle.dumps((uid, result), pickle.HIGHEST_PROTOCOL)
            write_all(res_w, struct.pack('<I', len(data)) + data)
    except BaseException:
        code = 1
    os._exit(code)


def raise_timeout(signum, frame):
    raise CrawlTimeout()


def check_validity(filename, source, options=None):
    """The verdict of the game `source` (named `filename`): a dict with checks (the five flags),
    runnable, winnable, initial_actions, error, sequences, steps (step calls, up to the first error:
    resolve), timed_out, snapshots ('pickle' or 'replay'), memo_hits, in_place_nodes (this
    process's), actions_reused (fresh mode: leaves and nodes whose regeneration was reused, every
    process's). options: mode ('official' | 'fresh'), seed, max_steps, max_num_actions, timeout_s,
    strategy ('fast' | 'replay'), processes, in_place (default true), reuse_actions (default true),
    libraries ([name, source]). Also cpu_seconds: the CPU time the check took (its forked processes
    included)."""
    options = options or {}
    start = os.times()
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
            'memo_hits': crawl.memo_hits, 'in_place_nodes': crawl.in_place_nodes,
            'actions_reused': crawl.actions_reused,
            'cpu_seconds': cpu_seconds(start)}


def cpu_seconds(start):
    """CPU time of this process and its waited-for children (the crawl's forked processes) since `start`."""
    end = os.times()
    return sum(end[i] - start[i] for i in range(4))
