# pcglab test game 1: the spec's worked example (ige_gamebase.md §12), written from its description.
from GameBase import *


class CustomGame(GameBase):
    def config(self):
        self.n_players = 6
        self.min_bet = 2
        self.max_bet = 10000
        self.suit = ['P', 'J', 'O', 'Z', 'I', 'C', 'Q']
        self.suit_have_rank = False
        self.value = ['6', '11', '1', '15', '8', '4', '2', '7', '14', '16', '18', '5', '12', '13',
                      '19', '3', '9', '17', '0']
        self.card_combinations_rank = ['Two Pair', 'Full House', 'Three of a Kind', 'Four of a Kind',
                                       'Straight', 'Straight Flush', 'Flush', 'High Card', 'Pair']

    def set_flow(self):
        self.flow = ['start', 'shuffle', 'blind', 'deal3', 'bet', 'flop3', 'bet', 'flop1', 'show',
                     'prize']

    def start(self):
        self.deck = [s + v for v in self.value for s in self.suit]
        self.community = []
        for pid in self.players:
            self.players[pid].hole = []
            self.players[pid].fold = False

    def blind(self):
        small, big = random_choice(self.player_ids, 2)

        def bet(pid, amount):
            self.players[pid].bet += amount
            self.players[pid].remain -= amount

        bet(small, self.min_bet // 4)
        bet(big, self.min_bet)

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
