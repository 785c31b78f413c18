"""pcglab's GameBase (src/poker/python/GameBase.py) tested as Python.

Run by ctest (tests/poker/area.cmake) with Debian's /usr/bin/python3:
    PCGLAB_POKER_PYTHON_DIR=<build>/poker_python /usr/bin/python3 -B tests/poker/gamebase_test.py [-v]
The folder holds the native extension _pcglab_poker; without it the native tests are skipped and
the rest run on the pure-Python path.
"""
import importlib
import json
import os
import random
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..', '..')
NATIVE_DIR = os.environ.get('PCGLAB_POKER_PYTHON_DIR', '')
if NATIVE_DIR:
    sys.path.insert(0, NATIVE_DIR)
sys.path.insert(0, os.path.join(ROOT, 'src', 'poker', 'python'))
import GameBase  # noqa: E402

CATS = ['High Card', 'Pair', 'Two Pair', 'Three of a Kind', 'Straight', 'Flush', 'Full House',
        'Four of a Kind', 'Straight Flush']


def read(path):
    with open(os.path.join(ROOT, path)) as f:
        return f.read()


def play(source, seed):
    random.seed(seed)
    scope = {}
    exec(compile(source, 'game.py', 'exec'), scope)
    game = scope['CustomGame']()
    game.play(auto=True)
    return game.state


class WithoutNative:
    """Runs the block with GameBase's pure-Python showdown."""

    def __enter__(self):
        self.saved = GameBase._native
        GameBase._native = None

    def __exit__(self, *exc):
        GameBase._native = self.saved


class GoldenStates(unittest.TestCase):
    def test_spec_game_1_seeds_1_to_3(self):
        golden = json.loads(read('tests/data/poker/spec_game1_seeds1-3.json'))
        source = read('tests/poker/games/game01.py')
        with WithoutNative():
            self.assertEqual([play(source, s) for s in (1, 2, 3)], golden)
        if GameBase._native is not None:
            self.assertEqual([play(source, s) for s in (1, 2, 3)], golden)


@unittest.skipIf(GameBase._native is None, 'the native extension _pcglab_poker is not built')
class NativeShowdown(unittest.TestCase):
    def test_the_ten_test_games_give_the_same_states(self):
        for n in range(1, 11):
            source = read('tests/poker/games/game%02d.py' % n)
            for seed in (1, 2, 3, 4, 5):
                native = play(source, seed)
                with WithoutNative():
                    self.assertEqual(native, play(source, seed), 'game %d seed %d' % (n, seed))

    def test_random_hands_rank_as_python(self):
        rng = random.Random(26)
        for case in range(600):
            game = GameBase.GameBase.__new__(GameBase.GameBase)
            suits = rng.sample('HDCSPJOZIQ', rng.randint(1, 6))
            values = [str(v) for v in rng.sample(range(30), rng.randint(2, 14))]
            if rng.random() < 0.1:
                values.append(values[0])  # a duplicated value: its last position counts
            game.suit, game.value = suits, values
            game.suit_have_rank = rng.random() < 0.5
            game.card_combinations_rank = rng.sample(CATS, 9)
            deck = [s + v for s in suits for v in values]
            community = [rng.choice(deck) for _ in range(rng.randint(0, 5))]  # duplicates allowed
            holes = [[rng.choice(deck) for _ in range(rng.randint(1, 4))] for _ in range(rng.randint(1, 5))]
            hands = {'p%d' % i: game.evaluate(h, community) for i, h in enumerate(holes)}
            args = (holes, community, values, suits, game.suit_have_rank, game.card_combinations_rank)
            try:
                expected = [int(pid[1:]) for pid in game.get_winners(hands)]
            except KeyError:  # a hand of fewer than 5 cards met a full one: native refuses it too
                with self.assertRaises(ValueError, msg='case %d' % case):
                    GameBase._native.winners(*args)
                continue
            got = GameBase._native.winners(*args)
            self.assertEqual(got, expected, 'case %d: %r %r %r' % (case, holes, community, game.__dict__))

    def test_what_native_cannot_rank_is_refused(self):
        with self.assertRaises(ValueError):  # a value missing from the config
            GameBase._native.winners([['H9', 'H8']], ['H7', 'H6', 'H99'], ['6', '7', '8', '9'], ['H'], False, CATS)
        with self.assertRaises(ValueError):  # a category missing from the order
            GameBase._native.winners([['H9']], [], ['9'], ['H'], False, CATS[1:])


class Surface(unittest.TestCase):
    def test_the_names_generated_code_uses_are_exported(self):
        scope = {}
        exec('from GameBase import *', scope)
        for name in ('random', 'combinations', 'product', 'Counter', 'logging', 'json', 'ABC',
                     'abstractmethod', 'inspect', 'shuffle', 'random_choice', 'HandWrapper', 'Player',
                     'GameBase'):
            self.assertIn(name, scope)
        self.assertFalse([n for n in scope if n.startswith('_') and n != '__builtins__'])

    def test_helpers_draw_as_the_random_module(self):
        random.seed(5)
        x = list(range(10))
        GameBase.shuffle(x)
        a = (x, GameBase.random_choice('abcdef'), GameBase.random_choice('abcdef', 3))
        random.seed(5)
        y = list(range(10))
        random.shuffle(y)
        self.assertEqual(a, (y, random.choice('abcdef'), random.sample('abcdef', 3)))

    def test_overriding_a_ranking_method_takes_the_python_path(self):
        source = read('tests/poker/games/game01.py') + (
            '\n    def get_value_rank(self, v):\n        return -super().get_value_rank(v)\n')
        states = [play(source, s) for s in (1, 2, 3)]
        with WithoutNative():
            self.assertEqual(states, [play(source, s) for s in (1, 2, 3)])
        golden = json.loads(read('tests/data/poker/spec_game1_seeds1-3.json'))
        self.assertNotEqual(states, golden)  # the reversed value order changed some winner


class EdgeCases(unittest.TestCase):
    def game(self, flow, extra=''):
        return read('tests/poker/games/game01.py').replace(
            "self.flow = ['start', 'shuffle', 'blind', 'deal3', 'bet', 'flop3', 'bet', 'flop1', 'show',\n"
            "                     'prize']", 'self.flow = %r' % (flow,)) + extra

    def test_errors_as_the_official_engine(self):
        cases = [([], AttributeError), (['start', 'prize'], AttributeError), (['shuffle'], AttributeError),
                 (['start', 'deal02'], SyntaxError), (['start', 'dealer'], NameError),
                 (['start', 'deal200'], IndexError)]
        for flow, error in cases:
            with self.assertRaises(error, msg=repr(flow)):
                play(self.game(flow), 1)

    def test_unknown_names_run_nothing_and_stay_in_the_flow(self):
        state = play(self.game(['start', 'dance', 'deal 2', 'show', 'prize']), 1)
        self.assertEqual(state['flow'], ['start', 'dance', 'deal 2', 'show', 'prize'])
        self.assertEqual(len(state['deck']), 133 - 13)
        # Fewer than 5 cards at the showdown: the last unfolded player wins alone (p6 gets the pot 0).
        self.assertTrue(all(p.startswith('p') for p in state['players']))

    def test_a_non_str_card_fails_at_the_first_logged_step(self):
        extra = '\n    def shuffle(self):\n        self.deck.append(7)\n'
        play(self.game(['start', 'shuffle']), 1)
        with self.assertRaises(TypeError):
            play(self.game(['start', 'shuffle'], extra), 1)


class ManualMode(unittest.TestCase):
    """play(auto=False): each decision is the next scripted line (GameBase._set_manual_actions)."""

    def setUp(self):
        self.source = read('tests/poker/games/manual.py')

    def tearDown(self):
        GameBase._set_manual_actions(None)

    def manual(self, seed, actions):
        GameBase._set_manual_actions(actions)
        random.seed(seed)
        scope = {}
        exec(compile(self.source, 'manual.py', 'exec'), scope)
        game = scope['CustomGame']()
        game.play(auto=False)
        return game

    def test_scripted_switches_and_bets(self):
        # The expected state, built from the auto-mode game up to the deal (start, shuffle, blind and
        # deal draw the same either way) and the decisions applied by hand.
        random.seed(4)
        scope = {}
        exec(compile(self.source, 'manual.py', 'exec'), scope)
        ref = scope['CustomGame']()
        for j in range(4):  # start, shuffle, blind, deal2
            ref.step(j, True)
        deck = list(ref.deck)
        holes = {pid: list(p.hole) for pid, p in ref.players.items()}
        holes['p1'][0] = deck.pop()   # switch '0'
        holes['p3'][0] = deck.pop()   # switch '0, 1'
        holes['p3'][1] = deck.pop()
        game = self.manual(4, ['0', '', '0, 1', 'r 10', 'call', 'f'])
        self.assertEqual({pid: p.hole for pid, p in game.players.items()}, holes)
        self.assertEqual(game.deck, deck[:-4])  # flop3: a burn and three cards
        self.assertEqual([(p.bet, p.fold) for p in game.players.values()], [(10, False), (10, False),
                                                                            (ref.players['p3'].bet, True)])
        self.assertEqual(game.players['p1'].remain, 100 - 10)
        self.assertEqual(game.winners, game.get_winners(
            {pid: game.evaluate(game.players[pid].hole, game.community) for pid in ('p1', 'p2')}))
        # The decisions draw nothing: the community is the auto game's next cards after the same pops.
        self.assertEqual(game.community, [deck[-2], deck[-3], deck[-4]])

    def test_a_raise_goes_round_again(self):
        # p1 raises to 6, p2 re-raises to 8: p3 and p1 must act again before the phase ends.
        game = self.manual(2, ['', '', '', 'r 6', 'r 8', 'c', 'c'])
        self.assertEqual([p.bet for p in game.players.values()], [8, 8, 8])

    def test_bad_or_missing_decisions_raise_as_the_official_input_would(self):
        with self.assertRaisesRegex(Exception, 'Invalid act: x'):
            self.manual(1, ['', '', '', 'x'])
        with self.assertRaises(IndexError):  # an empty line in a bet phase: text[0]
            self.manual(1, ['', '', '', ''])
        with self.assertRaisesRegex(EOFError, 'no scripted decision left'):
            self.manual(1, ['', '', '', 'c'])

    def test_auto_mode_reads_no_decision(self):
        GameBase._set_manual_actions([])  # any decision read would raise EOFError
        random.seed(3)
        scope = {}
        exec(compile(self.source, 'manual.py', 'exec'), scope)
        scope['CustomGame']().play(auto=True)

    def test_the_runner_plays_manual_mode_per_seed(self):
        import runner
        actions = ['0', '', '0, 1', 'r 10', 'call', 'f']
        out = runner.run_seeds('manual.py', self.source, [4, 4, 5], actions)
        self.assertEqual([ok for ok, _ in out], [True, True, True])
        self.assertEqual(out[0], out[1])  # each seed starts from the first decision
        self.assertTrue(out[2][1]['players'][2].endswith('True'))  # p3 folded
        ok, error = runner.run_seeds('manual.py', self.source, [4], ['', '', '', 'c'])[0]
        self.assertFalse(ok)
        self.assertEqual(error[0], 'EOFError')
        self.assertEqual(runner.run_seeds('manual.py', self.source, [4], None)[0][0], True)  # auto


class RoundLog(unittest.TestCase):
    """The round log the runner captures (GameBase._capture_round_log): the log file's lines."""

    def test_the_captured_lines_are_the_log_files_text(self):
        # The same seed played in a child process that writes PCGLAB_POKER_LOG, and captured here.
        import subprocess
        import tempfile
        import runner
        source = read('tests/poker/games/game03.py')
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, 'game_log.log')
            child = ('import sys, random; sys.path[:0] = %r; import runner; '
                     'runner.run_seeds("game03.py", open(%r).read(), [7])') % (
                         sys.path[:2], os.path.join(ROOT, 'tests/poker/games/game03.py'))
            subprocess.run([sys.executable, '-B', '-c', child], check=True,
                           env=dict(os.environ, PCGLAB_POKER_LOG=path))
            with open(path) as f:
                written = f.read()
        (ok, state, lines), = runner.run_seeds('game03.py', source, [7], None, [100000, 1 << 24])
        self.assertTrue(ok)
        self.assertEqual(''.join(line + '\n' for line in lines), written)
        self.assertEqual(lines[:3], ['', 'state:', 'flow: start'])
        self.assertIn('phase: show', lines)
        self.assertTrue(any(line.startswith('winners: [') for line in lines))
        self.assertEqual(lines[-4:-2], ['message:', 'phase: prize'])
        self.assertTrue(lines[-1].startswith('share: '))
        self.assertEqual(runner.run_seeds('game03.py', source, [7])[0], [ok, state])  # no log asked

    def test_a_seed_that_raises_keeps_what_it_logged_before(self):
        import runner
        source = read('tests/poker/games/game03.py').replace(
            'class CustomGame(GameBase):', 'class CustomGame(GameBase):\n    def show(self):\n'
            '        raise ValueError("no showdown")\n', 1)
        (ok, error, lines), = runner.run_seeds('game03.py', source, [7], None, [100000, 1 << 24])
        self.assertFalse(ok)
        self.assertEqual(error[:2], ['ValueError', 'no showdown'])
        self.assertIn('message:', lines)
        self.assertNotIn('phase: show', lines)

    def test_a_log_past_the_cap_is_cut_with_a_count(self):
        import runner
        chatty = read('tests/poker/games/game03.py').replace(
            'class CustomGame(GameBase):', 'class CustomGame(GameBase):\n    def shuffle(self):\n'
            '        for i in range(5000):\n            self.log({"spam": "x" * 50})\n', 1)
        (ok, _, lines), = runner.run_seeds('game03.py', chatty, [7], None, [300, 1 << 24])
        self.assertTrue(ok)
        self.assertEqual(len(lines), 301)
        self.assertRegex(lines[-1], r'^\[pcglab: round log cut here: \d+ more lines not kept '
                                    r'\(at most 300 lines and 16777216 bytes per round\)\]$')
        (ok, _, lines), = runner.run_seeds('game03.py', chatty, [7], None, [100000, 4096])
        self.assertLessEqual(sum(len(line) + 1 for line in lines[:-1]), 4096)
        self.assertIn('more lines not kept', lines[-1])
        self.assertIsNone(GameBase._round_log)  # taken: the next seed starts a log of its own


if __name__ == '__main__':
    importlib.invalidate_caches()
    unittest.main()
