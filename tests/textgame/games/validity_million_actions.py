# pcglab test game: a million actions per state, every one its own verb.
class TextGame:
    def __init__(self, randomSeed):
        self.gameOver = self.gameWon = False
        self.score = 0
        self.possibleActions = {}

    def getTaskDescription(self):
        return 'Your task is to choose.'

    def calculateScore(self):
        self.score = 0

    def generatePossibleActions(self):
        self.possibleActions = {'press%d button' % i: ['press', i] for i in range(1000000)}
        return self.possibleActions

    def step(self, actionStr):
        return ('ok', self.score, 0, self.gameOver, self.gameWon)
