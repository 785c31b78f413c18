# pcglab test game: step never returns for "wait"; the loop also swallows plain exceptions.
class TextGame:
    def __init__(self, randomSeed):
        self.gameOver = self.gameWon = False
        self.score = 0
        self.possibleActions = {}

    def getTaskDescription(self):
        return 'Your task is to wait.'

    def calculateScore(self):
        self.score = 0

    def generatePossibleActions(self):
        self.possibleActions = {'wait': ['wait'], 'look around': ['look']}
        return self.possibleActions

    def step(self, actionStr):
        while actionStr == 'wait':
            try:
                pass
            except Exception:
                pass
        return ('ok', self.score, 0, self.gameOver, self.gameWon)
