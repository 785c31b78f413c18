# pcglab test game 2: start value-major, blind half, deal default, flop default, bet_done default.
from GameBase import *


class CustomGame(GameBase):
    def config(self):
        self.n_players = 3
        self.min_bet = 10
        self.max_bet = 100
        self.suit = ['I', 'Q', 'D', 'Z', 'P']
        self.suit_have_rank = False
        self.value = ['18', '17', '15', '24', '14', '7', '0', '2', '3', '9', '13', '1', '19', '21']
        self.card_combinations_rank = ['High Card', 'Straight Flush', 'Full House', 'Straight', 'Two Pair', 'Three of a Kind', 'Pair', 'Flush', 'Four of a Kind']

    def set_flow(self):
        self.flow = ['start', 'shuffle', 'blind', 'deal2', 'bet', 'flop3', 'bet', 'flop1', 'bet', 'flop1', 'bet', 'show', 'prize']

    def start(self):
        self.deck = [s + v for v in self.value for s in self.suit]
        self.community = []
        for pid in self.players:
            self.players[pid].hole = []
            self.players[pid].fold = False

    def blind(self):
        small, big = random_choice(self.player_ids, 2)
        self.players[small].bet += self.min_bet // 2
        self.players[small].remain -= self.min_bet // 2
        self.players[big].bet += self.min_bet
        self.players[big].remain -= self.min_bet
