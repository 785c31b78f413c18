# pcglab test game: getTaskDescription raises.
class TextGame:
    def __init__(self, randomSeed):
        self.gameOver = self.gameWon = False

    def getTaskDescription(self):
        return 'Your task is to ' + self.task
