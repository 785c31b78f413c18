# pcglab test game: its action list is regenerated from state a leaf's step leaves otherwise alike, so
# a fresh-mode crawl that reuses a regeneration for a state seen before must tell those states apart.
# Every step counts a turn and changes nothing visible but what its verb says; from the third turn on,
# generatePossibleActions
#   - wins when the game's own generator, drawn once per regeneration, draws below 0.2: only after
#     `roll`, which reseeds it with 1 (Random(0) and Random(1) draw nothing below 0.2 in their first
#     ten draws but Random(1)'s first, 0.134);
#   - raises when the stale dictionary's `take coin` names the second of the two coins, which are
#     alike but for their identity: only after `swap`, which swaps them.
# The leaves of a node run wait, roll, look, take coin, swap (the last action first): a key without
# the generator's state takes roll's leaf for wait's (no win), a key without the identity of the
# objects the stale dictionary refers to takes swap's for wait's (no error).
import random


class Coin:
    def __init__(self):
        self.name = 'coin'


class TextGame:
    def __init__(self, randomSeed):
        self.random = random.Random(randomSeed)
        self.coins = [Coin(), Coin()]
        self.turns = 0
        self.score = 0
        self.gameOver = False
        self.gameWon = False
        self.possibleActions = {}

    def getTaskDescription(self):
        return 'Roll the die.'

    def calculateScore(self):
        return self.score

    def generatePossibleActions(self):
        draw = self.random.random()
        old = self.possibleActions
        if self.turns >= 3 and old and old['take coin'][0][1] is not self.coins[0]:
            raise ValueError('the stale dictionary names the swapped coin')
        if self.turns >= 3 and draw < 0.2:
            self.gameOver = self.gameWon = True
        self.possibleActions = {'swap': [['swap']], 'take coin': [['take', coin] for coin in self.coins],
                                'look': [['look']], 'roll': [['roll']], 'wait': [['wait']]}
        return self.possibleActions

    def step(self, actionStr):
        verb = self.possibleActions[actionStr][0][0]
        self.turns += 1
        if verb == 'swap':
            self.coins.reverse()
        elif verb == 'roll':
            self.random.seed(1)
        return ('You ' + verb + '.', self.score, 0, self.gameOver, self.gameWon)
