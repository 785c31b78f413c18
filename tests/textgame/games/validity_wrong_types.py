# pcglab test game: generatePossibleActions returns None instead of a dict.
class TextGame:
    def __init__(self, randomSeed):
        self.gameOver = self.gameWon = False
        self.score = 0

    def getTaskDescription(self):
        return 42

    def calculateScore(self):
        self.score = 0

    def generatePossibleActions(self):
        self.possibleActions = None
        return self.possibleActions
