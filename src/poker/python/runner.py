"""pcglab's poker runner: the module a sandbox worker loads to run a CustomGame file per seed.

For each seed it does what the official run template does: random.seed(seed), a fresh globals
dict, the game file's code, CustomGame(), play(auto=True); it returns the final state (its four
lists) or the seed's error. GameBase is preloaded into the worker (poker/run.h).
"""
import random
import sys
import traceback

_compiled = {}


def _code(filename, source):
    key = (filename, source)
    if key not in _compiled:
        _compiled.clear()
        _compiled[key] = compile(source, filename, 'exec')
    return _compiled[key]


def _frames(filename, tb):
    return ['line %d, in %s' % (f.lineno, f.name) for f in traceback.extract_tb(tb) if f.filename == filename]


def run_seed(filename, source, seed):
    """The final state of one seed; raises what the game raised."""
    code = _code(filename, source)
    random.seed(seed)
    scope = {'__name__': '__pcglab_game__', '__builtins__': __builtins__}
    exec(code, scope)
    game = scope['CustomGame']()
    game.play(auto=True)
    state = game.state
    return {'flow': list(state['flow']), 'deck': list(state['deck']),
            'community': list(state['community']), 'players': list(state['players'])}


def run_seeds(filename, source, seeds):
    """One result per seed: [True, state] or [False, [type, message, frames]]."""
    out = []
    for seed in seeds:
        try:
            out.append([True, run_seed(filename, source, seed)])
        except Exception:  # the seed's error; the others still run
            kind, value, tb = sys.exc_info()
            out.append([False, [kind.__name__, str(value), _frames(filename, tb)]])
    return out
