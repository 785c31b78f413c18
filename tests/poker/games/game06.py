# pcglab test game 6: start suit-major, blind half, deal default, flop burn-each, bet_done all-equal.
from GameBase import *


class CustomGame(GameBase):
    def config(self):
        self.n_players = 3
        self.min_bet = 20
        self.max_bet = 500
        self.suit = ['Q', 'I', 'D', 'P', 'Z', 'J']
        self.suit_have_rank = True
        self.value = ['19', '1', '17', '8', '20', '11', '4', '0', '10']
        self.card_combinations_rank = ['High Card', 'Full House', 'Straight Flush', 'Flush', 'Three of a Kind', 'Pair', 'Straight', 'Two Pair', 'Four of a Kind']

    def set_flow(self):
        self.flow = ['start', 'shuffle', 'blind', 'deal1', 'bet', 'flop2', 'bet', 'deal1', 'bet', 'flop1', 'show', 'prize']

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
        small, big = random_choice(self.player_ids, 2)
        self.players[small].bet += self.min_bet // 2
        self.players[small].remain -= self.min_bet // 2
        self.players[big].bet += self.min_bet
        self.players[big].remain -= self.min_bet

    def flopx(self, x):
        self.deck.pop()
        for _ in range(x):
            self.community += [self.deck.pop()]
            self.deck.pop()

    def bet_done(self, wait):
        bets = [self.players[pid].bet for pid in self.get_unfold_players()]
        return len(wait) == 0 and max(bets) == min(bets)
