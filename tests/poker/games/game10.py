# pcglab test game 10: start value-major, blind half, deal burn-after, flop default, bet_done all-equal.
from GameBase import *


class CustomGame(GameBase):
    def config(self):
        self.n_players = 5
        self.min_bet = 4
        self.max_bet = 500
        self.suit = ['Q', 'I', 'S', 'H', 'P', 'C', 'D']
        self.suit_have_rank = True
        self.value = ['18', '8', '21', '17', '4', '3', '23', '19', '13', '5', '1', '10']
        self.card_combinations_rank = ['Three of a Kind', 'Straight', 'Full House', 'Two Pair', 'Straight Flush', 'Pair', 'Four of a Kind', 'Flush', 'High Card']

    def set_flow(self):
        self.flow = ['start', 'shuffle', 'blind', 'deal5', 'bet', 'show', 'prize']

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

    def dealx(self, x):
        for _ in range(x):
            for pid in self.players:
                self.players[pid].hole += [self.deck.pop()]
        self.deck.pop()

    def bet_done(self, wait):
        bets = [self.players[pid].bet for pid in self.get_unfold_players()]
        return len(wait) == 0 and max(bets) == min(bets)
