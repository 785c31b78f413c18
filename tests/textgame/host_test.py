"""The text-game host's Python (src/textgame/python/host.py) tested as Python.

Run by ctest (tests/textgame/area.cmake) with Debian's /usr/bin/python3:
    /usr/bin/python3 -B tests/textgame/host_test.py [-v]
The host is imported as a module and driven on pcglab's own test games (tests/textgame/games/)
without a sandbox; the sandboxed session is tested from C++ (host_test.cc).
"""
import importlib.util
import os
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
GAMES = os.path.join(HERE, 'games')
spec = importlib.util.spec_from_file_location(
    'pcglab_textgame_host', os.path.join(HERE, '..', '..', 'src', 'textgame', 'python', 'host.py'))
host = importlib.util.module_from_spec(spec)
spec.loader.exec_module(host)


def read(name):
    with open(os.path.join(GAMES, name)) as f:
        return f.read()


def load(name, libraries=(), max_actions=100000, max_text=1 << 20):
    return host.load_game(os.path.basename(name), read(name), list(libraries), max_actions, max_text)


def ok(reply):
    assert reply[0], reply
    return reply[1]


def error(reply):
    assert not reply[0], reply
    stage, cause, typ, message, frames, tb = reply[1]
    return {'stage': stage, 'cause': cause, 'type': typ, 'message': message, 'frames': frames, 'traceback': tb}


class WinningGame(unittest.TestCase):
    def setUp(self):
        self.assertEqual(ok(load('host_win.py')), 'TextGame')

    def test_plays_to_a_win_in_three_steps(self):
        observation, steps = ok(host.new_game(0))
        self.assertEqual(observation, 'You are in a small room with a closed box and a locked door.')
        self.assertEqual(steps, '0')
        self.assertEqual(ok(host.task_description()), 'Your task is to open the locked door.')
        self.assertEqual(ok(host.possible_actions()),
                         ['look around', 'inventory', 'open box', 'close box', 'unlock door'])
        self.assertEqual(ok(host.step('open box'))[:5], ['You open the box. Inside is a brass key.', 1.0, 1.0,
                                                         False, False])
        self.assertIn('take key', ok(host.possible_actions()))
        ok(host.step('take key'))
        out = ok(host.step('unlock door'))
        self.assertEqual(out[1:5], [3.0, 1.0, True, True])
        self.assertEqual(out[5:], ['3', '1', 'True', 'True', '3'])  # str() of each, as main() prints
        self.assertEqual(ok(host.calculate_score()), [3.0, True, True])

    def test_the_seed_reaches_the_game(self):
        ok(host.new_game(1))
        host.possible_actions()
        self.assertEqual(ok(host.step('open box'))[0], 'You open the box. Inside is a blue key.')

    def test_step_uses_the_last_dictionary_as_the_game_does(self):
        ok(host.new_game(0))
        self.assertEqual(ok(host.step('open box'))[0], "I don't understand that.")  # no dict yet

    def test_help_text_is_main_s(self):
        ok(host.new_game(0))
        self.assertFalse(host.actions_text()[0])
        host.possible_actions()
        self.assertEqual(ok(host.actions_text()),
                         "dict_keys(['look around', 'inventory', 'open box', 'close box', 'unlock door'])")

    def test_snapshot_restores_and_branches(self):
        ok(host.new_game(0))
        host.possible_actions()
        ok(host.step('open box'))
        snap = ok(host.snapshot())
        host.possible_actions()
        ok(host.step('take key'))
        host.possible_actions()
        self.assertTrue(ok(host.step('unlock door'))[3])
        for _ in range(2):  # the snapshot stays: branch from it twice
            ok(host.restore(snap))
            host.possible_actions()
            self.assertEqual(ok(host.step('inventory'))[0], 'You have nothing.')
            host.possible_actions()
            self.assertEqual(ok(host.step('unlock door'))[0], 'The door is locked. You need a key.')
            host.possible_actions()
            self.assertEqual(ok(host.step('take key'))[0], 'You take the brass key.')  # not in the snapshot
        ok(host.drop_snapshot(snap))
        self.assertEqual(error(host.restore(snap))['cause'], 'session')


class BrokenGames(unittest.TestCase):
    def test_an_exception_in_step_gives_the_frames_inside_the_game(self):
        ok(load('host_crash_step.py'))
        ok(host.new_game(0))
        host.possible_actions()
        e = error(host.step('kick box'))
        self.assertEqual((e['stage'], e['cause'], e['type'], e['message']),
                         ('step', 'exception', 'ZeroDivisionError', 'division by zero'))
        self.assertEqual([f.splitlines()[0] for f in e['frames']],
                         ['File "host_crash_step.py", line 25, in step',
                          'File "host_crash_step.py", line 20, in kickStrength'])
        self.assertTrue(e['traceback'].startswith('Traceback (most recent call last):\n  File "host_crash_step.py"'),
                        e['traceback'])

    def test_reading_a_file_is_an_error_even_when_the_game_catches_it(self):
        ok(load('host_reads_file.py'))
        ok(host.new_game(0))
        e = error(host.task_description())
        self.assertEqual(e['cause'], 'forbidden')
        self.assertIn("the game opened the file '/etc/hostname'", e['message'])

    def test_opening_a_socket_is_an_error(self):
        ok(load('host_socket.py'))
        ok(host.new_game(0))
        e = error(host.step('call'))
        self.assertEqual(e['cause'], 'forbidden')
        self.assertIn('opened a socket', e['message'])

    def test_the_guard_is_off_outside_the_game(self):
        ok(load('host_reads_file.py'))
        with open(os.path.join(GAMES, 'host_win.py')) as f:  # the host's own process opens files freely
            self.assertTrue(f.read())

    def test_wrong_return_types(self):
        ok(load('host_bad_types.py'))
        ok(host.new_game(0))
        e = error(host.task_description())
        self.assertEqual((e['cause'], e['message']), ('type', 'getTaskDescription returned list, not a str'))
        host.possible_actions()
        e = error(host.step('wait'))
        self.assertEqual(e['message'], 'step returned str, not a 5-tuple (observation, score, reward, gameOver, '
                                       'gameWon)')

    def test_a_million_actions_is_a_limit(self):
        ok(load('host_many_actions.py'))
        ok(host.new_game(0))
        e = error(host.possible_actions())
        self.assertEqual((e['cause'], e['message']),
                         ('limit', 'generatePossibleActions returned 1000000 actions (the limit is 100000)'))

    def test_a_syntax_error_is_the_game_s_not_a_file_read(self):
        e = error(load('host_syntax.py'))
        self.assertEqual((e['stage'], e['cause'], e['type']), ('import', 'exception', 'SyntaxError'))
        self.assertIn('line 4', e['message'])

    def test_no_game_class(self):
        e = error(host.load_game('nogame.py', 'class Board:\n    pass\n', [], 10, 10))
        self.assertEqual(e['cause'], 'import')
        self.assertIn('no class TextGame', e['message'])

    def test_calls_without_a_live_game(self):
        ok(load('host_win.py'))
        self.assertEqual(error(host.step('look around'))['cause'], 'session')


class RefactoredGame(unittest.TestCase):
    LIB = [['data.library.GameBasic', 'GameBasic.py', read('corpus/data/library/GameBasic.py')]]

    def test_the_first_class_ending_in_game_defined_in_the_module(self):
        self.assertEqual(ok(load('corpus/host_refactored.py', self.LIB)), 'LampGame')
        self.assertEqual(ok(host.new_game(0))[0], 'A dark study with a lamp and a book.')
        host.possible_actions()
        ok(host.step('light lamp'))
        host.possible_actions()
        self.assertEqual(ok(host.step('read book'))[:5], ['You read the book.', 2.0, 1.0, True, True])

    def test_without_the_library_the_error_names_the_fix(self):
        e = error(load('corpus/host_refactored.py'))
        self.assertEqual(e['type'], 'ModuleNotFoundError')
        self.assertIn('--corpus DIR', e['message'])


if __name__ == '__main__':
    unittest.main()
