# pcglab test game 5: start value-major, blind default, deal front, flop reshuffle, bet_done default.
from GameBase import *


class CustomGame(GameBase):
    def config(self):
        self.n_players = 6
        self.min_bet = 1
        self.max_bet = 100
        self.suit = ['S', 'P', 'Z', 'Q', 'I']
        self.suit_have_rank = True
        self.value = ['13', '17', '21', '1', '9', '10', '14', '3', '18', '8', '7', '2', '6', '11', '16']
        self.card_combinations_rank = ['Four of a Kind', 'Full House', 'Flush', 'Straight Flush', 'High Card', 'Two Pair', 'Three of a Kind', 'Straight', 'Pair']

    def set_flow(self):
        self.flow = ['start', 'shuffle', 'deal2', 'blind', 'bet', 'flop3', 'bet', 'show', 'prize']

    def start(self):
        self.deck = [s + v for v in self.value for s in self.suit]
        self.community = []
        for pid in self.players:
            self.players[pid].hole = []
            self.players[pid].fold = False

    def dealx(self, x):
        for _ in range(x):
            for pid in self.players:
                self.players[pid].hole += [self.deck.pop(0)]

    def flopx(self, x):
        shuffle(self.deck)
        self.deck.pop()
        self.community += [self.deck.pop() for _ in range(x)]
