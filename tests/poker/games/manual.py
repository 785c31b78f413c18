# pcglab test game for manual mode (play(auto=False)): 3 players, a switch and a bet phase whose
# decisions come from scripted actions; no prize, so the bets and folds stay in the state.
from GameBase import *


class CustomGame(GameBase):
    def config(self):
        self.n_players = 3
        self.min_bet = 2
        self.max_bet = 100
        self.suit = ['H', 'D', 'C', 'S']
        self.suit_have_rank = False
        self.value = [str(v) for v in range(2, 15)]
        self.card_combinations_rank = ['High Card', 'Pair', 'Two Pair', 'Three of a Kind', 'Straight', 'Flush',
                                       'Full House', 'Four of a Kind', 'Straight Flush']

    def set_flow(self):
        self.flow = ['start', 'shuffle', 'blind', 'deal2', 'switch', 'bet', 'flop3', 'show']

    def start(self):
        self.deck = [s + v for v in self.value for s in self.suit]
        self.community = []
