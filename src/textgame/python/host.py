# pcglab's text-game host: the module a sandbox worker loads (textgame/host.cc: GameSession) to run
# one BYTESIZED32 game as a live object. pcglab's own code, embedded at build time
# (pcglab_embed_file) and tested as Python (tests/textgame/host_test.py).
#
# The worker loads this file as its module; pcglab then calls its functions (worker.call):
#   load_game(filename, source, libraries, max_actions, max_text)  the game's module and its class
#   new_game(seed)               a live game: GameClass(randomSeed=seed)
#   task_description()           getTaskDescription()
#   possible_actions()           generatePossibleActions(): the action strings, in the dict's order
#   actions_text()               str(keys) of the last such dict, as main() prints it for `help`
#   step(action)                 step(action): the 5-tuple, checked, plus what main() prints
#   calculate_score()            calculateScore(), then the game's score, gameOver and gameWon
#   snapshot() / restore(id) / drop_snapshot(id)   copies of the live game (copy.deepcopy)
# Every function returns [True, value] or [False, error], error = [stage, cause, type, message,
# frames, traceback]: cause 'exception' (the game raised), 'type' (a wrong return type), 'limit' (too
# many actions, too long a text), 'forbidden' (the game opened a file, a socket or a process),
# 'import' (no game class), 'session' (no game loaded or no live game, an unknown snapshot);
# frames are the traceback entries inside the game file (as the official check_validity quotes
# them). Wall-clock limits, memory and crashes are the sandbox's (the worker is killed).
import copy
import numbers
import os
import sys
import traceback
import types

if 'game_class_of' not in globals():  # a file of its own (the Python tests): the shared loader beside it
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gameload import add_module, game_class_of

GUARD_NAME = '_pcglab_textgame_guard'

# The audit hook lives in a module of its own so that a second load of this file in the same
# process (a worker kept for the next item) adds no second hook. While `active`, what a text game
# has no business doing (opening files other than Python's own library, sockets, processes) raises
# PermissionError and is remembered, so a game that catches the error is still reported.
guard = sys.modules.get(GUARD_NAME)
if guard is None:
    guard = types.ModuleType(GUARD_NAME)
    guard.active = False
    guard.violation = None
    guard.added_modules = []  # what load_game added to sys.modules, over every load of this file

    def audit(event, args, guard=guard):
        if not guard.active:
            return
        what = None
        if event == 'open':
            path = args[0]
            if isinstance(path, bytes):
                path = path.decode('utf-8', 'replace')
            # Imports read Python's library under /usr (read-only in the sandbox); nothing else.
            writing = len(args) > 1 and isinstance(args[1], str) and any(c in args[1] for c in 'wax+')
            if not isinstance(path, str) or writing or not path.startswith('/usr/'):
                what = 'opened the file %r' % (path,)
        elif event in ('socket.__new__', 'socket.connect', 'socket.bind', 'socket.getaddrinfo'):
            what = 'opened a socket'
        elif event in ('subprocess.Popen', 'os.system', 'os.exec', 'os.posix_spawn', 'os.fork', 'os.spawn'):
            what = 'started a process'
        if what is not None:
            if guard.violation is None:
                guard.violation = what
            raise PermissionError('a text game may not do this: it %s' % what)

    sys.addaudithook(audit)
    sys.modules[GUARD_NAME] = guard

GAME_FILE = None
game_class = None
game = None
snapshots = {}
added_modules = guard.added_modules  # the game's modules, its libraries and their packages
last_actions = [None]  # the dict the last possible_actions() returned (main()'s `help` prints its keys)
next_snapshot = [0]
settings = {'max_actions': 100000, 'max_text': 1 << 20}


FORBIDDEN_HINT = ' (a text game may not open files, sockets or processes)'


class HostError(Exception):
    def __init__(self, cause, message):
        Exception.__init__(self, message)
        self.cause = cause


def game_frames(tb):
    # The traceback entries inside the game file, each stripped (check_validity's error text).
    summary = traceback.extract_tb(tb)
    return [text.strip() for text, fs in zip(traceback.format_list(summary), summary) if fs.filename == GAME_FILE]


def user_traceback(e):
    # Python's traceback from the first frame outside this file (the host's own frames dropped).
    tb = e.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename in (__file__, '<string>'):
        tb = tb.tb_next
    return ''.join(traceback.format_exception(type(e), e, tb))


def failure(stage, e):
    if isinstance(e, HostError):
        return [False, [stage, e.cause, '', str(e), [], '']]
    if guard.violation is not None:
        return [False, [stage, 'forbidden', type(e).__name__, 'the game ' + guard.violation + FORBIDDEN_HINT,
                        game_frames(e.__traceback__), user_traceback(e)]]
    return [False, [stage, 'exception', type(e).__name__, str(e), game_frames(e.__traceback__), user_traceback(e)]]


def in_game(stage, fn, *args, **kwargs):
    # Runs game code under the guard; a violation the game caught is still its error.
    guard.violation = None
    guard.active = True
    try:
        value = fn(*args, **kwargs)
    finally:
        guard.active = False
    if guard.violation is not None:
        raise HostError('forbidden', 'the game %s%s' % (guard.violation, FORBIDDEN_HINT))
    return value


def checked_text(what, value):
    if not isinstance(value, str):
        raise HostError('type', '%s returned %s, not a str' % (what, type(value).__name__))
    if len(value) > settings['max_text']:
        raise HostError('limit', '%s returned a text of %d characters (the limit is %d)' %
                        (what, len(value), settings['max_text']))
    return value


def load_game(filename, source, libraries, max_actions, max_text):
    global GAME_FILE, game_class, game
    GAME_FILE, game_class, game = filename, None, None
    while added_modules:  # an earlier game's modules (and libraries) are not this one's
        sys.modules.pop(added_modules.pop(), None)
    snapshots.clear()
    last_actions[0] = None
    settings['max_actions'], settings['max_text'] = max_actions, max_text
    try:
        for lib_name, lib_file, lib_source in libraries:
            add_module(lib_name, lib_file, lib_source, lambda fn, *args: in_game('import', fn, *args),
                       added_modules)
        name = filename[:-3] if filename.endswith('.py') else filename
        module = add_module(name, filename, source, lambda fn, *args: in_game('import', fn, *args),
                            added_modules)
        game_class = game_class_of(module, name)
        if game_class is None:
            raise HostError('import', 'the game defines no class TextGame (nor a class whose name ends in "Game")')
        return [True, game_class.__name__]
    except ModuleNotFoundError as e:
        f = failure('import', e)
        if e.name and e.name.split('.')[0] == 'data':
            f[1][3] += (' (a BYTESIZED32-Refactored game: give --corpus DIR, the checkout whose '
                        'data/library/GameBasic.py it imports)')
        return f
    except BaseException as e:  # noqa: B036  (SystemExit and KeyboardInterrupt from game code too)
        return failure('import', e)


def live(stage):
    if game is None:
        raise HostError('session', 'no live game (new_game was not called, or it failed)')
    return game


def new_game(seed):
    global game
    game = None
    try:
        if game_class is None:
            raise HostError('session', 'no game is loaded')
        g = in_game(game_class.__name__, game_class, randomSeed=seed)
        game = g
        observation = getattr(g, 'observationStr', None)
        if observation is not None:
            observation = checked_text('observationStr', observation)
        return [True, [observation, str(getattr(g, 'numSteps', ''))]]
    except BaseException as e:  # noqa: B036
        return failure('TextGame', e)


def task_description():
    try:
        g = live('getTaskDescription')
        return [True, checked_text('getTaskDescription', in_game('getTaskDescription', g.getTaskDescription))]
    except BaseException as e:  # noqa: B036
        return failure('getTaskDescription', e)


def possible_actions():
    try:
        g = live('generatePossibleActions')
        actions = in_game('generatePossibleActions', g.generatePossibleActions)
        if not isinstance(actions, dict):
            raise HostError('type', 'generatePossibleActions returned %s, not a dict {action string: arguments}' %
                            type(actions).__name__)
        if len(actions) > settings['max_actions']:
            raise HostError('limit', 'generatePossibleActions returned %d actions (the limit is %d)' %
                            (len(actions), settings['max_actions']))
        keys = list(actions)
        last_actions[0] = actions
        for k in keys:
            if not isinstance(k, str):
                raise HostError('type', 'generatePossibleActions returned a dict with a %s key (%r), not a str' %
                                (type(k).__name__, k))
        total = sum(len(k) for k in keys)
        if total > settings['max_text'] * 16:
            raise HostError('limit', 'generatePossibleActions returned %d characters of action strings (the limit '
                            'is %d)' % (total, settings['max_text'] * 16))
        return [True, keys]
    except BaseException as e:  # noqa: B036
        return failure('generatePossibleActions', e)


def actions_text():
    # What main() prints for `help`: str(possibleActions.keys()) of the last dictionary.
    try:
        if last_actions[0] is None:
            raise HostError('session', 'generatePossibleActions has not been called')
        return [True, str(last_actions[0].keys())]
    except BaseException as e:  # noqa: B036
        return failure('help', e)


def is_number(x):
    return isinstance(x, numbers.Real)


def is_flag(x):
    return isinstance(x, numbers.Integral)  # bool, int, numpy integers and bools


def step(action):
    try:
        g = live('step')
        out = in_game('step', g.step, action)
        if not isinstance(out, (tuple, list)) or len(out) != 5:
            shape = type(out).__name__ + ('' if not isinstance(out, (tuple, list)) else ' of %d' % len(out))
            raise HostError('type', 'step returned %s, not a 5-tuple (observation, score, reward, gameOver, gameWon)'
                            % shape)
        observation, score, reward, over, won = out
        checked_text('step (its observation)', observation)
        for what, v, ok, want in (('score', score, is_number, 'a number'), ('reward', reward, is_number, 'a number'),
                                  ('gameOver', over, is_flag, 'a bool'), ('gameWon', won, is_flag, 'a bool')):
            if not ok(v):
                raise HostError('type', 'step returned %s as its %s, not %s' % (type(v).__name__, what, want))
        return [True, [observation, float(score), float(reward), bool(over), bool(won),
                       str(score), str(reward), str(over), str(won), str(getattr(g, 'numSteps', ''))]]
    except BaseException as e:  # noqa: B036
        return failure('step', e)


def calculate_score():
    try:
        g = live('calculateScore')
        in_game('calculateScore', g.calculateScore)
        score = getattr(g, 'score', None)
        return [True, [float(score) if is_number(score) else None, bool(getattr(g, 'gameOver', False)),
                       bool(getattr(g, 'gameWon', False))]]
    except BaseException as e:  # noqa: B036
        return failure('calculateScore', e)


def snapshot():
    try:
        g = live('snapshot')
        copied = in_game('snapshot', copy.deepcopy, g)
        next_snapshot[0] += 1
        snapshots[next_snapshot[0]] = copied
        return [True, next_snapshot[0]]
    except BaseException as e:  # noqa: B036
        return failure('snapshot', e)


def restore(snapshot_id):
    # The live game becomes a copy of the snapshot, which stays: restore it again to branch.
    global game
    try:
        if snapshot_id not in snapshots:
            raise HostError('session', 'no snapshot %d' % snapshot_id)
        game = in_game('restore', copy.deepcopy, snapshots[snapshot_id])
        return [True, None]
    except BaseException as e:  # noqa: B036
        return failure('restore', e)


def drop_snapshot(snapshot_id):
    snapshots.pop(snapshot_id, None)
    return [True, None]
