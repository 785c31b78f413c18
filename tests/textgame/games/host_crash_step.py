# pcglab's own test game: "kick box" raises inside a helper of the game (ZeroDivisionError).


class TextGame:
    def __init__(self, randomSeed):
        self.numSteps = 0
        self.score = 0
        self.gameOver = False
        self.gameWon = False
        self.observationStr = 'A box.'

    def getTaskDescription(self):
        return 'Your task is to kick the box.'

    def generatePossibleActions(self):
        self.possibleActions = {'look': [['look']], 'kick box': [['kick', 'box']]}
        return self.possibleActions

    def kickStrength(self):
        return 10 / self.numSteps * 0

    def step(self, actionStr):
        if actionStr == 'kick box':
            self.numSteps = 0
            self.observationStr = 'You kick with strength %d.' % self.kickStrength()
        else:
            self.numSteps += 1
            self.observationStr = 'A box.'
        return (self.observationStr, self.score, 0, self.gameOver, self.gameWon)

    def calculateScore(self):
        self.score = 0
