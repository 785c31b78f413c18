"""pcglab's GameBase: the IGE poker engine as generated CustomGame code expects it.

Written from the behavioural specification (shared/reference/ige_gamebase.md); the names, the
flow dispatch, the state dictionary and every draw from Python's global `random` follow it, so a
seed gives the same final state as the official engine. Hand evaluation and the showdown run in
native code (pcglab's `_pcglab_poker` module, when it can be imported) as long as the game keeps
the engine's own ranking methods; a game that overrides any of them, or a hand the native code
cannot rank exactly (a value or suit missing from the config, a card that is not a str), takes
the Python path below, which is the reference. The log is off unless PCGLAB_POKER_LOG names a
file or the runner captures a round's log (_capture_round_log: the same lines, kept in memory up to
a cap); it never changes the state, and the checks the official log makes (cards must be str,
`deck` and `community` must exist) run either way.
"""
import random
from itertools import combinations, product
from collections import Counter
import logging
import json
from abc import ABC, abstractmethod
import inspect
import os as _os

try:
    import _pcglab_poker as _native
except ImportError:  # the pure-Python path is complete on its own
    _native = None

# Imported for generated code (`from GameBase import *` exports them, as the official module does).
_EXPORTED = (product, json, ABC, abstractmethod)

_LOG_FILE = _os.environ.get('PCGLAB_POKER_LOG', '')


class _RoundLog:
    """A round's log lines, as the official logger writes them to its file, kept in memory up to a
    cap (pcglab's round log: sessions show it, `poker run --log` prints it). Past `max_lines` lines
    or `max_bytes` bytes (UTF-8, newlines counted) nothing more is kept; the lines left out are
    counted and one last line says so."""

    def __init__(self, max_lines, max_bytes):
        self.lines = []
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self.room = max_bytes
        self.dropped = 0

    def add(self, text):
        lines = text.split('\n')
        if self.dropped:
            self.dropped += len(lines)
            return
        for i, line in enumerate(lines):
            size = len(line.encode('utf-8', 'replace')) + 1
            if len(self.lines) >= self.max_lines or size > self.room:
                self.dropped += len(lines) - i
                return
            self.room -= size
            self.lines.append(line)

    def result(self):
        if self.dropped:
            return self.lines + ['[pcglab: round log cut here: %d more lines not kept (at most %d lines '
                                 'and %d bytes per round)]' % (self.dropped, self.max_lines,
                                                               self.max_bytes)]
        return self.lines


# The round log being captured (None: no capture). _capture_round_log starts one, _take_round_log
# returns its lines and stops it.
_round_log = None


def _capture_round_log(max_lines=4000, max_bytes=262144):
    global _round_log
    _round_log = _RoundLog(max_lines, max_bytes)


def _take_round_log():
    global _round_log
    log, _round_log = _round_log, None
    return [] if log is None else log.result()

# Manual mode (play(auto=False)): the official engine asks a person with input(). A sandbox has no
# terminal, so pcglab scripts the decisions: _set_manual_actions(lines) gives the lines input()
# would return, in order (`pcglab poker run --actions FILE`); past the last one a decision raises
# EOFError, as input() does at the end of its input. None (the default): input() itself.
_manual_actions = None


def _set_manual_actions(lines):
    global _manual_actions
    _manual_actions = None if lines is None else [str(line) for line in lines][::-1]


def _read_action():
    if _manual_actions is None:
        return input()
    if not _manual_actions:
        raise EOFError('manual mode: no scripted decision left (each input() takes the next line '
                       'given with --actions)')
    return _manual_actions.pop()


def shuffle(x):
    random.shuffle(x)


def random_choice(x, k=1):
    if k == 1:
        return random.choice(x)
    return random.sample(x, k=k)


class Player:
    def __init__(self, bet, remain, hole, fold):
        self.bet = bet
        self.remain = remain
        self.hole = hole
        self.fold = fold


def _default_rank(c):
    return int(c[1:])


class HandWrapper:
    """Groups a hand's cards by value and by suit, in order of first appearance."""

    def __init__(self, hand):
        self.hand = list(hand)
        self.values = {}
        self.suits = {}
        for c in self.hand:
            self.values.setdefault(c[1:], []).append(c)
            self.suits.setdefault(c[0], []).append(c)

    def common(self, x):
        return [group for group in self.values.values() if len(group) == x]

    def most_common(self):
        return max(len(group) for group in self.values.values()) if self.values else 0

    def max(self, rank=_default_rank):
        return max(self.hand, key=rank)

    def sort(self, rank=_default_rank):
        return sorted(self.hand, key=rank, reverse=True)

    def sort_most_common(self, rank=_default_rank):
        ordered = []
        for size in range(self.most_common(), 0, -1):
            groups = self.common(size)
            groups = sorted(groups, key=lambda g: max(rank(c) for c in g), reverse=True)
            for group in groups:
                ordered += group
        return ordered

    def cmp_most_common(self, other, rank=_default_rank):
        mine = self.sort_most_common(rank)
        theirs = other.sort_most_common(rank)
        for a, b in zip(mine, theirs):
            ra, rb = rank(a), rank(b)
            if ra > rb:
                return 1
            if ra < rb:
                return -1
        return 0

    def cmp(self, other, rank=_default_rank):
        for a, b in zip(self.sort(rank), other.sort(rank)):
            ra, rb = rank(a), rank(b)
            if ra > rb:
                return 1
            if ra < rb:
                return -1
        return 0


def _phase_count(text):
    # What the official engine gets by eval(text): a plain decimal (spaces around it) is read
    # directly; anything else goes to eval, which raises or returns as it does there.
    digits = text.strip(' ')
    if digits.isascii() and digits.isdigit() and (digits == '0' or digits[0] != '0'):
        return int(digits)
    return eval(text)


# The engine's own ranking methods: while a game keeps all of them, the showdown may run natively.
_RANKING_METHODS = ('evaluate', 'cmp_hand', 'get_winners', 'is_straightflush', 'is_fourofakind',
                    'is_fullhouse', 'is_flush', 'is_straight', 'is_threeofakind', 'is_twopair',
                    'is_pair', 'get_value_rank', 'get_suit_rank', 'get_card_rank',
                    'get_combination_rank', 'get_unfold_players', 'show')


class GameBase:
    def __init__(self):
        self.config()
        self.set_flow()
        self.players = {}
        for i in range(self.n_players):
            self.players['p%d' % (i + 1)] = Player(0, self.max_bet, [], False)
        self.player_ids = list(self.players.keys())
        self.set_logger()

    # Game code overrides these.
    def config(self):
        pass

    def set_flow(self):
        pass

    # Logging: optional and leak-free (one handler per process, only when PCGLAB_POKER_LOG is set).
    def set_logger(self):
        self.logger = logging.getLogger('my_logger')
        if _LOG_FILE and not self.logger.handlers:
            self.logger.setLevel(logging.DEBUG)
            handler = logging.FileHandler(_LOG_FILE, mode='w')
            handler.setFormatter(logging.Formatter(''))
            self.logger.addHandler(handler)

    def log(self, message):
        # The joins are the official log's checks (str cards, deck and community present).
        flow = ', '.join(self.flow[:self.j + 1])
        deck = ', '.join(self.deck)
        community = ', '.join(self.community)
        if _LOG_FILE or _round_log is not None:
            players = ', '.join(self._player_texts())
            lines = ['', 'state:', 'flow: ' + flow, 'deck: ' + deck, 'community: ' + community,
                     'players: ' + players, 'message:']
            lines += ['%s: %s' % (key, value) for key, value in message.items()]
            text = '\n'.join(lines)
            if _LOG_FILE:
                self.logger.info(text)
            if _round_log is not None:
                _round_log.add(text)

    def _player_texts(self):
        return ['%s: %s/%s/%s/%s' % (pid, p.bet, p.remain, p.hole, p.fold)
                for pid, p in self.players.items()]

    # Default phases.
    def shuffle(self):
        shuffle(self.deck)

    def blind(self):
        a, b = random_choice(self.player_ids, 2)
        for pid in (a, b):
            self.players[pid].bet += self.min_bet
            self.players[pid].remain -= self.min_bet

    def dealx(self, x):
        for _ in range(x):
            for pid in self.players:
                self.players[pid].hole += [self.deck.pop()]

    def flopx(self, x):
        self.deck.pop()
        for _ in range(x):
            self.community += [self.deck.pop()]

    def switch(self, indices, pid):
        for i in indices:
            self.players[pid].hole[i] = self.deck.pop()

    def bet_done(self, wait):
        if len(wait) > 0:
            return False
        unfold = self.get_unfold_players()
        first = self.players[unfold[0]].bet
        return all(self.players[pid].bet == first for pid in unfold)

    # Helpers.
    def get_unfold_players(self):
        return [pid for pid in self.players if not self.players[pid].fold]

    def get_parameter_count(self, name):
        return len(inspect.signature(getattr(self, name)).parameters)

    # Ranks (the lookup tables are rebuilt on every call, as in the official engine).
    def get_value_rank(self, v):
        return {value: i + 1 for i, value in enumerate(self.value)}[v]

    def get_suit_rank(self, s):
        if not self.suit_have_rank:
            return 1
        return {suit: i + 1 for i, suit in enumerate(self.suit)}[s]

    def get_card_rank(self, c):
        return self.get_value_rank(c[1:]) + self.get_suit_rank(c[0]) / 10

    def get_combination_rank(self, name):
        return {n: i + 1 for i, n in enumerate(self.card_combinations_rank)}[name]

    # Category tests.
    def is_flush(self, cards):
        return any(n >= 5 for n in Counter(c[0] for c in cards).values())

    def is_straight(self, cards, get_value_rank):
        ranks = [get_value_rank(c[1:]) for c in cards]
        return len(set(ranks)) == len(ranks) and max(ranks) - min(ranks) == 4

    def is_straightflush(self, cards, get_value_rank):
        return self.is_flush(cards) and self.is_straight(cards, get_value_rank)

    def is_fourofakind(self, cards):
        return 4 in Counter(c[1:] for c in cards).values()

    def is_fullhouse(self, cards):
        return set(Counter(c[1:] for c in cards).values()) == {2, 3}

    def is_threeofakind(self, cards):
        return 3 in Counter(c[1:] for c in cards).values()

    def is_twopair(self, cards):
        return list(Counter(c[1:] for c in cards).values()).count(2) == 2

    def is_pair(self, cards):
        return 2 in Counter(c[1:] for c in cards).values()

    def classify(self, cards):
        if self.is_straightflush(cards, self.get_value_rank):
            return 'Straight Flush'
        if self.is_fourofakind(cards):
            return 'Four of a Kind'
        if self.is_fullhouse(cards):
            return 'Full House'
        if self.is_flush(cards):
            return 'Flush'
        if self.is_straight(cards, self.get_value_rank):
            return 'Straight'
        if self.is_threeofakind(cards):
            return 'Three of a Kind'
        if self.is_twopair(cards):
            return 'Two Pair'
        if self.is_pair(cards):
            return 'Pair'
        return 'High Card'

    def evaluate(self, hole, community=None):
        cards = list(hole) + (list(community) if community is not None else [])
        best = (None, None)
        for combo in combinations(cards, 5):
            hand = (combo, self.classify(combo))
            if best[0] is None or self.cmp_hand(hand, best) == 1:
                best = hand
        return best

    def cmp_hand(self, h1, h2):
        if h1[1] != h2[1]:
            r1 = self.get_combination_rank(h1[1])
            r2 = self.get_combination_rank(h2[1])
            return 1 if r1 > r2 else -1
        return HandWrapper(h1[0]).cmp_most_common(HandWrapper(h2[0]), self.get_card_rank)

    def get_winners(self, hands):
        winners = []
        best = None
        for pid, hand in hands.items():
            if best is None or best[0] is None:
                best, winners = hand, [pid]
                continue
            result = self.cmp_hand(hand, best)
            if result == 1:
                best, winners = hand, [pid]
            elif result == 0:
                winners.append(pid)
        return winners

    def _native_winners(self):
        """The winners by native code, or None when the Python path must decide."""
        if _native is None or type(self)._pcglab_custom_ranking():
            return None
        try:
            return _native.winners([self.players[pid].hole for pid in self.player_ids
                                    if not self.players[pid].fold],
                                   self.community, self.value, self.suit, bool(self.suit_have_rank),
                                   self.card_combinations_rank)
        except (TypeError, ValueError):
            return None

    @classmethod
    def _pcglab_custom_ranking(cls):
        cached = cls.__dict__.get('_pcglab_ranking_overridden')
        if cached is None:
            cached = any(getattr(cls, name) is not getattr(GameBase, name) for name in _RANKING_METHODS)
            cls._pcglab_ranking_overridden = cached
        return cached

    def show(self):
        unfold = [pid for pid in self.player_ids if not self.players[pid].fold]
        indices = self._native_winners()
        if indices is not None:
            self.winners = [unfold[i] for i in indices]
        else:
            two = self.get_parameter_count('evaluate') == 2
            hands = {}
            for pid in self.player_ids:
                if not self.players[pid].fold:
                    hole = self.players[pid].hole
                    hands[pid] = self.evaluate(hole, self.community) if two else self.evaluate(hole)
            self.winners = self.get_winners(hands)
        self.log({'phase': 'show', 'winners': self.winners})

    def prize(self):
        pot = sum(p.bet for p in self.players.values())
        share = pot // len(self.winners)
        for pid in self.winners:
            self.players[pid].remain += share
        for p in self.players.values():
            p.bet = 0
            p.fold = False
        self.log({'phase': 'prize', 'pot': pot, 'share': share})

    # The flow.
    def step(self, j, auto):
        self.j = j
        f = self.flow[j]
        if f == 'start':
            self.start()
            self.log({'phase': f})
        elif f == 'shuffle':
            self.shuffle()
            self.log({'phase': f})
        elif f == 'blind':
            self.blind()
            self.log({'phase': f})
        elif f.startswith('deal'):
            x = _phase_count(f.split('deal')[-1])
            self.dealx(x)
            self.log({'phase': f})
        elif f.startswith('flop'):
            x = _phase_count(f.split('flop')[-1])
            self.flopx(x)
            self.log({'phase': f})
        elif f == 'switch':
            self._switch_phase(auto)
        elif f == 'bet':
            self._bet_phase(auto)
        elif f == 'show':
            self.show()
        elif f == 'prize':
            self.prize()

    def _switch_phase(self, auto):
        for pid in self.players:
            p = self.players[pid]
            if auto:
                x = random.choice(range(len(p.hole)))
                if x > len(self.deck):
                    x = 0
                if x > 0:
                    idx = random.sample(range(len(p.hole)), x)
                    self.switch(idx, pid)
            else:
                text = _read_action()
                idx = [eval(piece) for piece in text.split(',') if piece.strip()]
                if idx:
                    self.switch(idx, pid)
            self.log({'phase': 'switch', 'player': pid})

    def _bet_phase(self, auto):
        wait = self.get_unfold_players()
        if len(wait) == 1:
            self.log({'phase': 'bet', 'status': 'done'})
            return
        bar = self.min_bet
        i = 0
        n = self.n_players
        own_bet_done = type(self).bet_done is not GameBase.bet_done
        while True:
            pid = self.player_ids[i]
            p = self.players[pid]
            if p.fold:
                i = (i + 1) % n
                continue
            if auto:
                if random.random() < 0.2:
                    target = bar + random.randint(1, 10) * self.min_bet
                    p.remain -= target - p.bet
                    p.bet = target
                    bar = target
                    act = 'raise'
                elif random.random() < 0.1:
                    p.fold = True
                    act = 'fold'
                elif bar > p.bet:
                    p.remain -= bar - p.bet
                    p.bet = bar
                    act = 'call'
                else:
                    act = 'check'
            else:
                text = _read_action()
                if text[0] == 'c':
                    if bar > p.bet:
                        p.remain -= bar - p.bet
                        p.bet = bar
                    act = 'call'
                elif text[0] == 'f':
                    p.fold = True
                    act = 'fold'
                elif text[0] == 'r':
                    target = eval(text.split(' ')[-1])
                    p.remain -= target - p.bet
                    p.bet = target
                    bar = target
                    act = 'raise'
                else:
                    raise Exception('Invalid act: ' + text)
            i = (i + 1) % n
            while self.players[self.player_ids[i]].fold:
                i = (i + 1) % n
            if wait:
                wait.pop(0)
            # The official engine makes this test twice (log, then decision): a bet_done of the
            # game's own is called twice, as there; GameBase's has no side effect.
            last = sum(1 for q in self.players.values() if not q.fold) == 1
            done = last or self.bet_done(wait)
            self.log({'phase': 'bet', 'player': pid, 'act': act, 'bet': p.bet, 'done': done})
            if last or (own_bet_done and self.bet_done(wait)) or (not own_bet_done and done):
                break

    def play(self, auto=False):
        for j in range(len(self.flow)):
            self.step(j, auto)
        self.state = {
            'flow': [self.flow[i] for i in range(self.j + 1)],
            'deck': self.deck,
            'community': self.community,
            'players': self._player_texts(),
        }
