# pcglab test game: two actions in every state, never over; the state is the whole history, so no two
# nodes of the crawl are alike. To depth 3 the crawl checks 2 + 4 + 8 = 14 sequences, and the fast
# crawl (a node's children start from a copy of it) makes exactly 14 step calls: one per node.


class TextGame:
    def __init__(self, randomSeed):
        self.history = ()
        self.score = 0
        self.gameOver = False
        self.gameWon = False
        self.possibleActions = {}

    def getTaskDescription(self):
        return 'Walk.'

    def calculateScore(self):
        return self.score

    def generatePossibleActions(self):
        self.possibleActions = {'go left': ['left'], 'go right': ['right']}
        return self.possibleActions

    def step(self, actionStr):
        self.history += (self.possibleActions[actionStr][0],)
        return ('You walk ' + actionStr[3:] + '.', self.score, 0, self.gameOver, self.gameWon)
