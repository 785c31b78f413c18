"""The validity crawl's Python (src/textgame/python/validity.py) tested as Python.

Run by ctest (tests/textgame/area.cmake) with Debian's /usr/bin/python3:
    /usr/bin/python3 -B tests/textgame/validity_script_test.py [-v]
It calls check_validity directly (no sandbox) on pcglab's test games (tests/textgame/games/) and on
generated games, and checks the verdicts: every outcome in both modes, and that the fast crawl (snapshots,
shared identical states, forked processes) gives exactly the straightforward replay crawl's verdict,
sequence counts and error texts included. The sandbox itself is tested from C++.
"""
import os
import random
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
GAMES = os.path.join(HERE, 'games')
sys.path.insert(0, os.path.join(HERE, '..', '..', 'src', 'textgame', 'python'))
import validity  # noqa: E402

# Every crawl must give the replay's verdict: the replay, the fast crawl in one and two processes (its
# siblings from one copy of their parent reset in place, InPlaceLeaves; in fresh mode a regeneration
# reused for a state regenerated before, Crawl.leaf), the fast crawl with a plain copy per sibling (the
# fallback of a state that is not reset in place), and the fast crawl regenerating at every node.
CRAWLS = (('replay', {'strategy': 'replay', 'processes': 1}), ('fast', {'strategy': 'fast', 'processes': 1}),
          ('fast 2', {'strategy': 'fast', 'processes': 2}),
          ('plain copies', {'strategy': 'fast', 'processes': 1, 'in_place': False}),
          ('no reuse', {'strategy': 'fast', 'processes': 1, 'reuse_actions': False}))
STALE = ("File \"validity_stale.py\", line 46, in step\n    self.room.remove(action[1])\n")


def game_source(name):
    with open(os.path.join(GAMES, name)) as f:
        return f.read()


def check(name, source=None, **options):
    return validity.check_validity(name, game_source(name) if source is None else source, options)


def verdict(result):
    """What must not depend on the crawl: everything but the work counters."""
    return {k: v for k, v in result.items()
            if k not in ('steps', 'memo_hits', 'snapshots', 'cpu_seconds', 'in_place_nodes', 'actions_reused')}


def flags(result):
    return ''.join('1' if result['checks'][k] else '0' for k in validity.CHECK_NAMES)


# A generated game: its state is a small tuple, its actions and their effects are drawn from a seeded
# generator over the state, some (state, action) pairs raise in step, some states end the game (won or
# lost), some actions are no-ops, so identical states recur at one depth.
GENERATED = '''
import random


class TextGame:
    def __init__(self, randomSeed):
        self.random = random.Random(randomSeed)
        self.alias = self.random  # one generator referenced twice: a copy must keep them one object
        self.state = (0, 0)
        self.numSteps = 0
        self.gameOver = self.gameWon = False
        self.score = 0
        self.possibleActions = {}

    def getTaskDescription(self):
        return 'generated'

    def calculateScore(self):
        self.score = self.state[0]

    def generatePossibleActions(self):
        r = random.Random(hash(self.state) ^ SEED)
        verbs = ['go', 'push', 'look', 'take'][:2 + self.state[1] % 3]
        self.possibleActions = {}
        for i in range(r.randint(1, WIDTH)):
            self.possibleActions['%s %d' % (r.choice(verbs), i)] = [[i % 5]]
        if FAILING_ACTIONS and r.random() < 0.3:
            raise KeyError('actions of %r' % (self.state,))
        return self.possibleActions

    def step(self, actionStr):
        if actionStr not in self.possibleActions:
            return ("I don't understand that.", self.score, 0, self.gameOver, self.gameWon)
        self.numSteps += 1
        arg = self.possibleActions[actionStr][0][0]
        if RANDOM_STEPS:  # the outcome of a step drawn from the game's own generator
            for _ in range(arg):
                self.random.random()
            x = self.alias.random()
            if x < FAIL:
                raise ValueError('draw %r' % x)
            if x > 0.9:
                self.gameOver = True
                self.gameWon = x > 0.95
            return ('ok', self.score, 0, self.gameOver, self.gameWon)
        r = random.Random(hash((self.state, actionStr)) ^ SEED)
        if r.random() < FAIL:
            raise ValueError('step %r in %r' % (actionStr, self.state))
        if arg:
            self.state = ((self.state[0] + arg) % 7, (self.state[1] * 3 + arg) % 5)
        if r.random() < 0.05:
            self.gameOver = True
            self.gameWon = r.random() < 0.5
        return ('ok', self.score, 0, self.gameOver, self.gameWon)
'''


def generated_game(seed, fail, width=9, failing_actions=False, random_steps=False):
    """random_steps: step draws from the game's own generator (self.random), so a copy of a state must
    carry that generator's exact state (the leaves share one live Random, reset before each)."""
    return ('SEED = %d\nFAIL = %r\nWIDTH = %d\nFAILING_ACTIONS = %r\nRANDOM_STEPS = %r\n'
            % (seed, fail, width, failing_actions, random_steps) + GENERATED)


class Outcomes(unittest.TestCase):
    def same_in_every_crawl(self, name, source=None, **options):
        results = [check(name, source, **crawl, **options) for _, crawl in CRAWLS]
        for (crawl, _), r in zip(CRAWLS[1:], results[1:]):
            self.assertEqual(verdict(r), verdict(results[0]), '%s %s' % (name, crawl))
        return results[0]

    def test_runnable_game_is_winnable_only_with_fresh_actions(self):
        official = self.same_in_every_crawl('validity_wins.py', mode='official')
        fresh = self.same_in_every_crawl('validity_wins.py', mode='fresh')
        for r in (official, fresh):
            self.assertEqual(flags(r), '11111')
            self.assertTrue(r['runnable'])
            self.assertEqual(r['initial_actions'], 5)
            self.assertEqual(r['error'], '')
            self.assertEqual(r['sequences'], 118)
        # "take key" appears after "open chest": the stale dictionary does not know it.
        self.assertFalse(official['winnable'])
        self.assertTrue(fresh['winnable'])

    def test_stale_dictionary_invents_an_error_that_fresh_actions_do_not_have(self):
        official = self.same_in_every_crawl('validity_stale.py', mode='official')
        fresh = self.same_in_every_crawl('validity_stale.py', mode='fresh')
        self.assertEqual(flags(official), '11101')
        self.assertFalse(official['runnable'])
        self.assertEqual(official['error'], STALE + 'list.remove(x): x not in list')
        self.assertEqual(official['sequences'], 3)
        self.assertEqual(flags(fresh), '11111')
        self.assertTrue(fresh['runnable'])
        self.assertTrue(fresh['winnable'])
        self.assertEqual(fresh['sequences'], 38)

    def test_step_error_carries_the_frames_inside_the_game_file(self):
        for mode in ('official', 'fresh'):
            r = self.same_in_every_crawl('validity_step_error.py', mode=mode)
            self.assertEqual(flags(r), '11101')
            self.assertFalse(r['runnable'])
            self.assertEqual(r['sequences'], 11)
            frames = r['error'].split('\n')
            self.assertEqual(frames[0], 'File "validity_step_error.py", line 28, in step')
            self.assertEqual(frames[2], 'File "validity_step_error.py", line 21, in take')
            self.assertEqual(frames[-1], "'coin'")
            self.assertNotIn('validity.py', r['error'])  # pcglab's own frames are not the game's

    def test_root_failures_in_the_official_order(self):
        cases = {
            'validity_syntax_error.py': ('00000', "expected ':' (validity_syntax_error.py, line 3)"),
            'validity_no_class.py': ('00000', "module 'validity_no_class' has no attribute 'TextGame'"),
            'validity_init_error.py': ('00000', "'kitchen'"),
            'validity_task_error.py': ('10000', "'TextGame' object has no attribute 'task'"),
            'validity_score_error.py': ('11000', 'division by zero'),
            'validity_actions_error.py': ('11001', "'TextGame' object has no attribute 'objects'"),
            'validity_wrong_types.py': ('11001', "object of type 'NoneType' has no len()"),
        }
        for name, (expected_flags, error) in cases.items():
            for mode in ('official', 'fresh'):
                r = self.same_in_every_crawl(name, mode=mode)
                self.assertEqual((flags(r), r['error'], r['runnable'], r['sequences']),
                                 (expected_flags, error, False, 0), '%s %s' % (name, mode))

    def test_loops_end_with_the_official_timeout_message_and_the_flags_reached(self):
        for name in ('validity_loop_actions.py', 'validity_loop_step.py'):
            for mode in ('official', 'fresh'):
                for strategy, crawl in CRAWLS:
                    r = check(name, mode=mode, timeout_s=0.5, **crawl)
                    self.assertTrue(r['timed_out'], name)
                    self.assertFalse(r['runnable'])
                    self.assertEqual(r['error'], validity.TIMEOUT_MESSAGE)
                    self.assertEqual(flags(r), '11111', '%s %s %s' % (name, mode, strategy))

    def test_million_actions_are_capped_per_verb_and_time_out(self):
        r = check('validity_million_actions.py', mode='fresh', timeout_s=3)
        self.assertTrue(r['timed_out'])
        self.assertEqual(r['error'], validity.TIMEOUT_MESSAGE)

    def test_a_state_that_does_not_pickle_is_replayed_with_the_same_verdict(self):
        for mode in ('official', 'fresh'):
            r = self.same_in_every_crawl('validity_unpicklable.py', mode=mode)
            self.assertTrue(r['runnable'])
            self.assertTrue(r['winnable'])
            self.assertEqual(r['sequences'], 80)
            self.assertEqual(check('validity_unpicklable.py', mode=mode)['snapshots'], 'replay')

    def test_sample_actions_caps_each_verb_with_the_seeded_sample(self):
        actions = ['take %d' % i for i in range(30)] + ['look'] + ['put %d' % i for i in range(5)]
        out = validity.sample_actions(actions, 10, 0)
        self.assertEqual(out[:10], random.Random(0).sample(actions[:30], 10))
        self.assertEqual(out[10:], actions[30:])

    def test_the_first_class_ending_in_game_when_there_is_no_text_game(self):
        m = validity.load_game_module('refactored.py', 'class Room:\n    pass\nclass BoilWaterGame:\n    pass\n')
        self.assertEqual(validity.find_game_class(m).__name__, 'BoilWaterGame')
        lib = 'class TextGame:\n    pass\n'
        m = validity.load_game_module('refactored2.py', 'from data.library.GameBasic import TextGame\n'
                                      'class KeyGame(TextGame):\n    pass\n', [('data.library.GameBasic', lib)])
        self.assertEqual(validity.find_game_class(m).__name__, 'KeyGame')


class OneLoader(unittest.TestCase):
    def test_the_game_class_is_the_hosts_choice_first_by_name(self):
        # Two classes ending in "Game", the later one first by name: the host's (and the refactored
        # evaluators' inspect.getmembers) choice, not the first defined.
        source = 'class ZooGame:\n    pass\nclass AntGame:\n    pass\n'
        m = validity.load_game_module('two_games.py', source)
        self.assertEqual(validity.find_game_class(m).__name__, 'AntGame')
        self.assertIs(validity.find_game_class(m), validity.game_class_of(m, 'two_games'))
        r = check('two_games.py', source)  # AntGame() has no randomSeed: the TextGame check fails
        self.assertEqual(flags(r), '00000')
        self.assertIn('AntGame', r['error'])


class FastEqualsReplay(unittest.TestCase):
    def test_generated_games_in_both_modes(self):
        for seed in range(40):
            fail = [0.0, 0.002, 0.02][seed % 3]
            source = generated_game(seed, fail, failing_actions=seed % 5 == 4)
            for mode in ('official', 'fresh'):
                results = [validity.check_validity('generated.py', source,
                                                   dict(crawl, mode=mode, max_num_actions=30))
                           for _, crawl in CRAWLS]
                for (crawl, _), r in zip(CRAWLS[1:], results[1:]):
                    self.assertEqual(verdict(r), verdict(results[0]), 'seed %d, %s, %s' % (seed, mode, crawl))

    def test_games_drawing_from_their_own_generator_in_step(self):
        for seed in range(8):
            source = generated_game(seed, [0.0, 0.005, 0.02][seed % 3], width=14, random_steps=True)
            for mode in ('official', 'fresh'):
                results = [validity.check_validity('generated.py', source,
                                                   dict(crawl, mode=mode, max_num_actions=30))
                           for _, crawl in CRAWLS]
                for (crawl, _), r in zip(CRAWLS[1:], results[1:]):
                    self.assertEqual(verdict(r), verdict(results[0]), 'seed %d, %s, %s' % (seed, mode, crawl))

    def test_a_later_error_met_while_a_unit_is_still_running_does_not_count(self):
        # The first subtree in the official order ends in a slow leaf step that raises (a forked unit);
        # meanwhile the parent reaches the next root, whose expansion raises: only the first error in
        # the official order counts, and its flags are the replay's (generatePossibleActions true).
        source = (
            'import time\n'
            'class TextGame:\n'
            '    def __init__(self, randomSeed):\n'
            '        self.path, self.gameOver, self.gameWon, self.score = [], False, False, 0\n'
            '    def getTaskDescription(self):\n'
            '        return "t"\n'
            '    def calculateScore(self):\n'
            '        pass\n'
            '    def generatePossibleActions(self):\n'
            '        if self.path == ["a"]:\n'
            '            raise KeyError("expansion of a")\n'
            '        return {"a": [], "b": []}\n'
            '    def step(self, action):\n'
            '        self.path.append(action)\n'
            '        if self.path == ["b", "b", "b"]:\n'
            '            time.sleep(0.5)  # the parent goes on meanwhile\n'
            '            raise ValueError("leaf")\n'
            '        return ("ok", 0, 0, False, False)\n')
        replay = validity.check_validity('late.py', source, {'strategy': 'replay'})
        self.assertEqual(flags(replay), '11101')
        self.assertEqual(replay['sequences'], 3)
        for _ in range(2):
            fast = validity.check_validity('late.py', source, {'strategy': 'fast', 'processes': 2})
            self.assertEqual(verdict(fast), verdict(replay))

    def test_the_kitchen_with_150_actions_per_state(self):
        for mode in ('official', 'fresh'):
            results = [check('validity_kitchen.py', mode=mode, roots=3, **crawl) for _, crawl in CRAWLS]
            self.assertEqual(results[0]['initial_actions'], 154)
            self.assertGreater(results[0]['sequences'], 5000)
            for r in results[1:]:
                self.assertEqual(verdict(r), verdict(results[0]), mode)
            self.assertLess(results[1]['steps'], results[0]['steps'] / 3)  # prefixes shared


class InPlace(unittest.TestCase):
    """The fast crawl gives the children of a node copies of one private copy reset in place (the
    node's objects keep their identity, get back their class and attributes, and share the node's action
    dictionary) when that cannot change what a child sees; else a plain copy each."""

    def same_as_replay(self, name):
        out = {}
        for mode in ('official', 'fresh'):
            replay = check(name, mode=mode, strategy='replay')
            for _, crawl in CRAWLS[1:]:
                r = check(name, mode=mode, **crawl)
                self.assertEqual(verdict(r), verdict(replay), '%s %s %s' % (name, mode, crawl))
            out[mode] = (replay, check(name, mode=mode, strategy='fast', processes=1))
        return out

    def test_the_kitchens_nodes_are_reset_in_place_with_the_replays_verdict(self):
        for mode in ('official', 'fresh'):
            fast = check('validity_kitchen.py', mode=mode, roots=3, processes=1)
            plain = check('validity_kitchen.py', mode=mode, roots=3, processes=1, in_place=False)
            self.assertGreater(fast['in_place_nodes'], 10, mode)
            self.assertEqual(plain['in_place_nodes'], 0)
            self.assertEqual(verdict(fast), verdict(plain), mode)

    def test_a_list_both_in_the_actions_and_in_the_state_is_never_reset_in_place(self):
        # Reset in place, the state would get a new box each time while the shared actions kept the
        # node's: the third item would never be seen, and the game never won.
        for mode, (replay, fast) in self.same_as_replay('validity_shared_list.py').items():
            self.assertTrue(replay['winnable'], mode)
            self.assertEqual(fast['in_place_nodes'], 0, mode)

    def test_a_step_that_empties_the_shared_actions_gives_the_later_siblings_plain_copies(self):
        # The leaves that run first empty the node's dictionary: the winning wave, last in the
        # official order, must still find it whole.
        for mode, (replay, fast) in self.same_as_replay('validity_forgets_actions.py').items():
            self.assertTrue(replay['winnable'], mode)
            self.assertGreater(fast['in_place_nodes'], 0, mode)

    def test_plain_classes_only(self):
        class Plain:
            pass

        class Keyed:
            def __hash__(self):
                return 1

        class Slotted:
            __slots__ = ('a',)

        class Listy(list):
            pass

        self.assertTrue(validity.plain_class(Plain))
        for cls in (Keyed, Slotted, Listy, int, dict):
            self.assertFalse(validity.plain_class(cls), cls)



class ReusedRegeneration(unittest.TestCase):
    """In fresh mode a leaf (and a node whose subtree is known) whose whole state after its step is one
    already regenerated takes that regeneration's outcome instead of regenerating (Crawl.leaf,
    Crawl.node_step): the same verdict as regenerating everywhere, on every game."""

    # Games that end quickly without a sandbox (the loops run into the timeout; the million-action game
    # takes long; the file and socket games are for the sandbox).
    GAMES = sorted(n for n in os.listdir(GAMES) if n.startswith('validity_') and n not in (
        'validity_loop_actions.py', 'validity_loop_step.py', 'validity_million_actions.py',
        'validity_reads_file.py', 'validity_opens_socket.py'))

    def same_as_regenerating_everywhere(self, name, **options):
        replay = check(name, mode='fresh', strategy='replay', **options)
        again = check(name, mode='fresh', processes=1, reuse_actions=False, **options)
        self.assertEqual(again['actions_reused'], 0)
        self.assertEqual(verdict(again), verdict(replay), name)
        reused = [check(name, mode='fresh', **crawl, **options) for crawl in (
            {'processes': 1, 'reuse_actions': 'always'}, {'processes': 2, 'reuse_actions': 'always'},
            {'processes': 1, 'in_place': False, 'reuse_actions': 'always'}, {'processes': 1})]
        for r in reused:
            self.assertEqual(verdict(r), verdict(replay), name)
        return replay, reused[0]

    def test_the_same_outcome_as_regenerating_at_every_node_on_every_test_game(self):
        reused = 0
        for name in self.GAMES:
            options = {'roots': 3} if name == 'validity_kitchen.py' else {}
            reused += self.same_as_regenerating_everywhere(name, **options)[1]['actions_reused']
        self.assertGreater(reused, 1000)  # the kitchen alone reuses more

    def test_the_kitchens_leaves_and_nodes_reuse_most_regenerations(self):
        fast = check('validity_kitchen.py', mode='fresh', roots=3, processes=1, reuse_actions='always')
        calls = []
        original = validity.Crawl.regenerate

        def counted(crawl, game):
            calls.append(1)
            return original(crawl, game)

        validity.Crawl.regenerate = counted
        try:
            again = check('validity_kitchen.py', mode='fresh', roots=3, processes=1, reuse_actions=False)
            every = len(calls)
            del calls[:]
            check('validity_kitchen.py', mode='fresh', roots=3, processes=1, reuse_actions='always')
        finally:
            validity.Crawl.regenerate = original
        self.assertEqual(verdict(fast), verdict(again))
        self.assertEqual(every, again['steps'])  # one regeneration per step without reuse
        self.assertEqual(len(calls) + fast['actions_reused'], every)
        self.assertLess(len(calls), every / 2)

    def test_the_generators_state_and_the_objects_the_stale_dictionary_names_are_part_of_the_state(self):
        # A key without the generator's state misses the win (roll's leaf taken for wait's); one without
        # the identity of the coins the stale dictionary names misses the error (swap's for wait's).
        replay, fast = self.same_as_regenerating_everywhere('validity_regen_reads_state.py')
        self.assertTrue(replay['winnable'])
        self.assertFalse(replay['runnable'])
        self.assertTrue(replay['error'].endswith('the stale dictionary names the swapped coin'), replay['error'])
        self.assertGreater(fast['actions_reused'], 0)
        self.assertGreater(fast['in_place_nodes'], 0)  # the cheaper key of a leaf reset in place is tried

    def test_the_stale_dictionary_is_part_of_the_state(self):
        # A key without the stale dictionary's contents takes the first leaf below sit, look (whose
        # dictionary has hum) for a leaf below sit, sit (whose has not): no error.
        replay, fast = self.same_as_regenerating_everywhere('validity_regen_reads_actions.py')
        self.assertEqual(flags(replay), '11011')
        self.assertTrue(replay['error'].endswith('hummed'), replay['error'])
        self.assertGreater(fast['actions_reused'], 0)
        self.assertGreater(fast['in_place_nodes'], 0)

    def test_keys_pause_where_the_regenerations_they_save_take_less_time_than_they_do(self):
        window = validity.ReuseGauge.WINDOW
        for adaptive, key, regeneration, paused in ((True, 1.0, 1.0, True), (True, 1.0, 3.0, False),
                                                     (False, 1.0, 1.0, False)):
            gauge = validity.ReuseGauge(adaptive)
            for i in range(window):  # half the leaves hit: they save half a regeneration per key
                self.assertTrue(gauge.keying())
                gauge.record(key, None if i % 2 else regeneration)
            self.assertEqual(gauge.paused, validity.ReuseGauge.PAUSE if paused else 0, (key, regeneration))
            if paused:
                self.assertEqual(sum(1 for _ in range(validity.ReuseGauge.PAUSE) if not gauge.keying()),
                                 validity.ReuseGauge.PAUSE)
                self.assertTrue(gauge.keying())  # then measured again

    def test_a_key_stands_for_the_whole_state(self):
        # States alike but for one thing have different keys, copies of one state the same key: for a
        # leaf reset in place (the cheaper key) and for a plain copy (the snapshot's digest).
        name = 'validity_regen_reads_state.py'
        game = validity.load_game_module(name, game_source(name)).TextGame(0)
        game.generatePossibleActions()
        crawl = validity.Crawl(name, {'mode': 'fresh'})
        snap = validity.dump_state(game)
        in_place = validity.InPlaceLeaves(snap)
        for place in ('in place', 'copy'):
            keys = []
            for change in ('none', 'roll', 'swap', 'turn', 'actions', 'none'):
                state = in_place.restore() if place == 'in place' else validity.pickle.loads(snap)
                if change == 'roll':
                    state.random.random()
                elif change == 'swap':
                    state.coins.reverse()
                elif change == 'turn':
                    state.turns += 1
                elif change == 'actions':
                    state.possibleActions['look'] = [['look'], ['look']]
                keys.append(crawl.leaf_key(state, in_place if place == 'in place' else None))
                if change == 'actions':
                    state.possibleActions['look'] = [['look']]  # as the node has it
            self.assertEqual(len(set(keys[:5])), 5, place)
            self.assertEqual(keys[5], keys[0], place)


class AddressesInReprs(unittest.TestCase):
    """A default repr in a game's state names a memory address, which depends on the process's history
    (hang-painting's observation shows `<hang-painting.Nail object at 0x...>`): the crawl's state keys
    read every such address as one, so that the twins it finds, and its work, are a function of the
    game alone (validity.ADDRESS)."""

    def test_states_alike_but_for_the_addresses_their_reprs_show_are_twins_in_every_crawl(self):
        # 16 nodes at depth 2 with 7 distinct totals: 9 twins, whose 36 leaves are not stepped.
        for mode in ('official', 'fresh'):
            replay = check('validity_address_repr.py', mode=mode, strategy='replay')
            self.assertTrue(replay['winnable'], mode)
            self.assertEqual((replay['sequences'], replay['steps']), (84, 228), mode)
            for name, crawl in CRAWLS[1:]:
                r = check('validity_address_repr.py', mode=mode, **crawl)
                self.assertEqual(verdict(r), verdict(replay), '%s %s' % (mode, name))
                self.assertEqual((r['memo_hits'], r['steps']), (9, 4 + 16 + 7 * 4), '%s %s' % (mode, name))

    def test_a_key_reads_every_address_as_one_and_nothing_else(self):
        name = 'validity_address_repr.py'
        game = validity.load_game_module(name, game_source(name)).TextGame(0)
        game.generatePossibleActions()
        crawl = validity.Crawl(name, {'mode': 'fresh'})
        snap = validity.dump_state(game)
        in_place = validity.InPlaceLeaves(snap)
        copies = [validity.pickle.loads(snap) for _ in range(3)]  # alive together: three addresses
        for copy, action in zip(copies, ('two', 'two', 'three')):
            copy.step(action)
        dumps = [validity.dump_state(copy) for copy in copies]
        self.assertNotEqual(dumps[0], dumps[1])  # the same state but for the dial's address
        keys = [validity.state_digest(data) for data in dumps]
        self.assertEqual(keys[0], keys[1])
        self.assertNotEqual(keys[0], keys[2])  # another total
        leaf_keys = [crawl.leaf_key(copy) for copy in copies]
        self.assertEqual(leaf_keys[0], leaf_keys[1])
        self.assertNotEqual(leaf_keys[0], leaf_keys[2])
        # The cheaper key of a leaf reset in place: two nodes' private copies, alive together.
        other = validity.InPlaceLeaves(snap)
        in_place_keys = []
        for node, action in ((in_place, 'two'), (other, 'two'), (other, 'three')):
            state = node.restore()
            state.step(action)
            self.assertIsNotNone(node.leaf_key(state))  # the cheaper key applies
            in_place_keys.append(crawl.leaf_key(state, node))
        self.assertIsNot(in_place.game.dial, other.game.dial)
        self.assertEqual(in_place_keys[0], in_place_keys[1])
        self.assertNotEqual(in_place_keys[0], in_place_keys[2])
        self.assertEqual(validity.address_free(b'<m.A object at 0x7f4cd6a54450> <function f at 0x55d0c1a2b3c0>'),
                         b'<m.A object at 0x?> <function f at 0x?>')
        self.assertEqual(validity.address_free(b'meet at 0x10 > 9'), b'meet at 0x10 > 9')


# A game whose first leaf in the official order fails, but only once a leaf of a later unit has run
# (the file SIGNAL exists; a generous limit in case both units were given one process): with two
# processes, the parent and the other process have by then stepped nodes and leaves past the error.
RACE = '''
import os
import time

SIGNAL = %r


class TextGame:
    def __init__(self, randomSeed):
        self.path = []
        self.score = 0
        self.gameOver = False
        self.gameWon = False
        self.possibleActions = {}

    def getTaskDescription(self):
        return 'Race.'

    def calculateScore(self):
        return self.score

    def generatePossibleActions(self):
        self.possibleActions = {word: [[word]] for word in ('a', 'b', 'c', 'd')}
        return self.possibleActions

    def step(self, actionStr):
        self.path.append(actionStr)
        if self.path[:2] == ['d', 'c']:
            open(SIGNAL, 'w').close()
        if self.path == ['d', 'd', 'd']:
            deadline = time.monotonic() + 120
            while not os.path.exists(SIGNAL) and time.monotonic() < deadline:
                time.sleep(0.01)
            raise ValueError('the first leaf fails')
        return ('You ' + actionStr + '.', self.score, 0, self.gameOver, self.gameWon)
'''


class StepsBeforeTheFirstError(unittest.TestCase):
    """`steps` counts the step calls of the work that counts, up to the first error in the official
    order (validity.resolve): not the work the parent and the forked processes did past it before they
    heard of it, which depends on timing."""

    def test_the_work_past_the_first_error_is_not_counted(self):
        with tempfile.TemporaryDirectory() as tmp:
            for mode in ('official', 'fresh'):
                signal = os.path.join(tmp, mode)
                r = validity.check_validity('race.py', RACE % signal, {'mode': mode, 'processes': 2})
                self.assertTrue(os.path.exists(signal), mode)  # a later unit ran before the error
                self.assertFalse(r['runnable'], mode)
                self.assertTrue(r['error'].endswith('the first leaf fails'), r['error'])
                # d, then d d, then the leaf d d d that fails: three sequences, three step calls.
                self.assertEqual((r['sequences'], r['steps']), (3, 3), mode)


if __name__ == '__main__':
    unittest.main()
