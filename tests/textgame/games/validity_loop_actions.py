# pcglab test game: generatePossibleActions never returns once the bell was rung.
class TextGame:
    def __init__(self, randomSeed):
        self.gameOver = self.gameWon = False
        self.score = 0
        self.rung = False
        self.possibleActions = {}

    def getTaskDescription(self):
        return 'Your task is to ring the bell.'

    def calculateScore(self):
        self.score = 0

    def generatePossibleActions(self):
        while self.rung:
            pass
        self.possibleActions = {'ring bell': ['ring'], 'look around': ['look']}
        return self.possibleActions

    def step(self, actionStr):
        if actionStr == 'ring bell':
            self.rung = True
        return ('ok', self.score, 0, self.gameOver, self.gameWon)
