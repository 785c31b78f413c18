# pcglab test game 4: start product, blind double, deal player-major, flop no-burn, bet_done default.
from GameBase import *


class CustomGame(GameBase):
    def config(self):
        self.n_players = 3
        self.min_bet = 10
        self.max_bet = 2000
        self.suit = ['S', 'C', 'H', 'J', 'P', 'Z', 'Q']
        self.suit_have_rank = True
        self.value = ['4', '15', '7', '3', '20', '14', '23', '17', '8', '12', '10', '24', '16', '19', '18']
        self.card_combinations_rank = ['Flush', 'Straight Flush', 'High Card', 'Straight', 'Two Pair', 'Pair', 'Three of a Kind', 'Full House', 'Four of a Kind']

    def set_flow(self):
        self.flow = ['start', 'shuffle', 'blind', 'deal5', 'bet', 'show', 'prize']

    def start(self):
        self.deck = [s + v for s, v in product(self.suit, reversed(self.value))]
        self.community = []
        for pid in self.player_ids:
            self.players[pid].hole = []
            self.players[pid].fold = False

    def blind(self):
        first, second = random_choice(self.player_ids, 2)

        def post(pid, amount):
            self.players[pid].bet += amount
            self.players[pid].remain -= amount

        post(first, self.min_bet)
        post(second, 2 * self.min_bet)

    def dealx(self, x):
        for pid in self.player_ids:
            for _ in range(x):
                self.players[pid].hole.append(self.deck.pop())

    def flopx(self, x):
        for _ in range(x):
            self.community.append(self.deck.pop())
