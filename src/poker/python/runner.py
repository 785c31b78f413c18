"""pcglab's poker runner: the module a sandbox worker loads to run a CustomGame file per seed.

For each seed it does what the official run template does: random.seed(seed), a fresh globals
dict, the game file's code, CustomGame(), play(auto=True); it returns the final state (its four
lists) or the seed's error. With `actions` (a list of str) it plays in manual mode instead:
play(auto=False), each decision read from the next line of `actions` (GameBase's
_set_manual_actions; every seed starts from the first line). With `log` it also returns each seed's
round log (GameBase's log lines, capped). GameBase is preloaded into the worker (poker/run.h).
"""
import random
import sys
import traceback

import GameBase

_compiled = {}


def _code(filename, source):
    key = (filename, source)
    if key not in _compiled:
        _compiled.clear()
        _compiled[key] = compile(source, filename, 'exec')
    return _compiled[key]


def _frames(filename, tb):
    return ['line %d, in %s' % (f.lineno, f.name) for f in traceback.extract_tb(tb) if f.filename == filename]


def run_seed(filename, source, seed, actions=None):
    """The final state of one seed; raises what the game raised."""
    code = _code(filename, source)
    GameBase._set_manual_actions(actions)
    random.seed(seed)
    scope = {'__name__': '__pcglab_game__', '__builtins__': __builtins__}
    exec(code, scope)
    game = scope['CustomGame']()
    game.play(auto=actions is None)
    state = game.state
    return {'flow': list(state['flow']), 'deck': list(state['deck']),
            'community': list(state['community']), 'players': list(state['players'])}


def run_seeds(filename, source, seeds, actions=None, log=None):
    """One result per seed: [True, state] or [False, [type, message, frames]]. With `log` =
    [max_lines, max_bytes], each result has a third element: the round's log lines (GameBase's
    log text, up to the cap; a seed that raised keeps the lines logged before it raised)."""
    out = []
    for seed in seeds:
        if log is not None:
            GameBase._capture_round_log(log[0], log[1])
        try:
            result = [True, run_seed(filename, source, seed, actions)]
        except Exception:  # the seed's error; the others still run
            kind, value, tb = sys.exc_info()
            result = [False, [kind.__name__, str(value), _frames(filename, tb)]]
        if log is not None:
            result.append(GameBase._take_round_log())
        out.append(result)
    return out
