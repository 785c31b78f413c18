# pcglab test game: calculateScore raises (it is checked before generatePossibleActions).
class TextGame:
    def __init__(self, randomSeed):
        self.gameOver = self.gameWon = False

    def getTaskDescription(self):
        return 'Your task is to score.'

    def calculateScore(self):
        self.score = 1 / 0

    def generatePossibleActions(self):
        raise ValueError('never reached')
