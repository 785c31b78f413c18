# pcglab test game 7: start product, blind default, deal burn-after, flop default, bet_done default.
from GameBase import *


class CustomGame(GameBase):
    def config(self):
        self.n_players = 4
        self.min_bet = 4
        self.max_bet = 2000
        self.suit = ['P', 'I', 'O', 'S', 'D', 'Q', 'J']
        self.suit_have_rank = True
        self.value = ['0', '3', '12', '2', '1', '11', '19', '24', '17', '15', '5', '10', '4', '7']
        self.card_combinations_rank = ['Straight Flush', 'Two Pair', 'High Card', 'Four of a Kind', 'Straight', 'Full House', 'Three of a Kind', 'Pair', 'Flush']

    def set_flow(self):
        self.flow = ['start', 'shuffle', 'shuffle', 'blind', 'deal4', 'bet', 'flop1', 'bet', 'flop1', 'bet', 'show', 'prize']

    def start(self):
        self.deck = [s + v for s, v in product(self.suit, reversed(self.value))]
        self.community = []
        for pid in self.player_ids:
            self.players[pid].hole = []
            self.players[pid].fold = False

    def dealx(self, x):
        for _ in range(x):
            for pid in self.players:
                self.players[pid].hole += [self.deck.pop()]
        self.deck.pop()
