# pcglab test game 3: start suit-major, blind default, deal burn-after, flop burn-each, bet_done all-equal.
from GameBase import *


class CustomGame(GameBase):
    def config(self):
        self.n_players = 5
        self.min_bet = 10
        self.max_bet = 2000
        self.suit = ['I', 'Q', 'P']
        self.suit_have_rank = False
        self.value = ['14', '4', '20', '18', '9', '0', '11', '21', '24', '13', '1', '6']
        self.card_combinations_rank = ['Flush', 'Two Pair', 'Pair', 'Straight', 'Three of a Kind', 'High Card', 'Full House', 'Four of a Kind', 'Straight Flush']

    def set_flow(self):
        self.flow = ['start', 'shuffle', 'blind', 'deal3', 'bet', 'flop2', 'bet', 'flop2', 'bet', 'show', 'prize']

    def start(self):
        self.deck = []
        for s in self.suit:
            for v in self.value:
                self.deck.append(s + v)
        self.community = []
        for p in self.players.values():
            p.hole = []
            p.fold = False
            p.bet = 0

    def dealx(self, x):
        for _ in range(x):
            for pid in self.players:
                self.players[pid].hole += [self.deck.pop()]
        self.deck.pop()

    def flopx(self, x):
        self.deck.pop()
        for _ in range(x):
            self.community += [self.deck.pop()]
            self.deck.pop()

    def bet_done(self, wait):
        bets = [self.players[pid].bet for pid in self.get_unfold_players()]
        return len(wait) == 0 and max(bets) == min(bets)
