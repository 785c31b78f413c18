# pcglab test game 9: start suit-major, blind double, deal front, flop no-burn, bet_done default.
from GameBase import *


class CustomGame(GameBase):
    def config(self):
        self.n_players = 5
        self.min_bet = 4
        self.max_bet = 500
        self.suit = ['J', 'C', 'P', 'S']
        self.suit_have_rank = False
        self.value = ['24', '13', '9', '14', '5', '10', '16', '15', '21', '3', '8', '12', '18', '4', '1']
        self.card_combinations_rank = ['Straight', 'Flush', 'Pair', 'Two Pair', 'Four of a Kind', 'Full House', 'High Card', 'Straight Flush', 'Three of a Kind']

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

    def blind(self):
        first, second = random_choice(self.player_ids, 2)

        def post(pid, amount):
            self.players[pid].bet += amount
            self.players[pid].remain -= amount

        post(first, self.min_bet)
        post(second, 2 * self.min_bet)

    def dealx(self, x):
        for _ in range(x):
            for pid in self.players:
                self.players[pid].hole += [self.deck.pop(0)]

    def flopx(self, x):
        for _ in range(x):
            self.community.append(self.deck.pop())
