# pcglab test game: generatePossibleActions raises after init.
class TextGame:
    def __init__(self, randomSeed):
        self.gameOver = self.gameWon = False
        self.score = 0

    def getTaskDescription(self):
        return 'Your task is to act.'

    def calculateScore(self):
        self.score = 0

    def generatePossibleActions(self):
        return {'look ' + obj.name: ['look', obj] for obj in self.objects}
