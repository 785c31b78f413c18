# pcglab test game 8: start value-major, blind double, deal player-major, flop reshuffle, bet_done all-equal.
from GameBase import *


class CustomGame(GameBase):
    def config(self):
        self.n_players = 4
        self.min_bet = 1
        self.max_bet = 2000
        self.suit = ['D', 'I', 'O', 'H', 'Q', 'J', 'Z', 'C']
        self.suit_have_rank = False
        self.value = ['14', '20', '6', '15', '0', '4', '16', '22']
        self.card_combinations_rank = ['High Card', 'Four of a Kind', 'Straight', 'Three of a Kind', 'Full House', 'Flush', 'Pair', 'Two Pair', 'Straight Flush']

    def set_flow(self):
        self.flow = ['start', 'shuffle', 'blind', 'deal2', 'bet', 'flop3', 'bet', 'flop1', 'bet', 'flop1', 'bet', 'show', 'prize']

    def start(self):
        self.deck = [s + v for v in self.value for s in self.suit]
        self.community = []
        for pid in self.players:
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
        shuffle(self.deck)
        self.deck.pop()
        self.community += [self.deck.pop() for _ in range(x)]

    def bet_done(self, wait):
        bets = [self.players[pid].bet for pid in self.get_unfold_players()]
        return len(wait) == 0 and max(bets) == min(bets)
