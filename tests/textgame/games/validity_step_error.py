# pcglab test game: step raises in a helper of the game file after "open box" then "take coin"
# (a KeyError two frames deep), so the error text carries the frames inside this file.
class TextGame:
    def __init__(self, randomSeed):
        self.gameOver = self.gameWon = False
        self.score = 0
        self.box = 'closed'
        self.possibleActions = {}

    def getTaskDescription(self):
        return 'Your task is to take the coin.'

    def calculateScore(self):
        self.score = 0

    def generatePossibleActions(self):
        self.possibleActions = {'open box': ['open'], 'look around': ['look'], 'take coin': ['take']}
        return self.possibleActions

    def take(self, name):
        return {'gem': 1}[name]

    def step(self, actionStr):
        verb = self.possibleActions[actionStr][0]
        if verb == 'open':
            self.box = 'open'
        elif verb == 'take' and self.box == 'open':
            self.take('coin')
        return ('ok', self.score, 0, self.gameOver, self.gameWon)
