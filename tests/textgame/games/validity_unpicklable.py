# pcglab test game whose state does not pickle (a lambda in an attribute): the fast crawl replays
# prefixes instead of snapshotting, with the same verdict. Winnable in 2 steps (light lamp, read book).
class TextGame:
    def __init__(self, randomSeed):
        self.gameOver = self.gameWon = False
        self.score = 0
        self.lit = False
        self.describe = lambda: 'lit' if self.lit else 'dark'
        self.possibleActions = {}

    def getTaskDescription(self):
        return 'Your task is to read the book.'

    def calculateScore(self):
        self.score = 0

    def generatePossibleActions(self):
        self.possibleActions = {'light lamp': ['light'], 'read book': ['read'], 'look around': ['look'],
                                'blow out lamp': ['blow']}
        return self.possibleActions

    def step(self, actionStr):
        verb = self.possibleActions[actionStr][0]
        if verb == 'light':
            self.lit = True
        elif verb == 'blow':
            self.lit = False
        elif verb == 'read' and self.describe() == 'lit':
            self.gameOver = self.gameWon = True
        return (self.describe(), self.score, 0, self.gameOver, self.gameWon)
