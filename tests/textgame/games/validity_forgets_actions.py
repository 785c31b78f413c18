# pcglab test game (validity crawl): a step forgets every action but the one taken (it empties the
# action dictionary it was given). Waving the flag third wins; it is the first action, so the official
# order tries it last among its siblings. Each sequence must start from a dictionary of its own.
class TextGame:
    def __init__(self, randomSeed):
        self.waves = 0
        self.score = 0
        self.numSteps = 0
        self.gameOver = False
        self.gameWon = False

    def getTaskDescription(self):
        return 'Your task is to wave the flag three times.'

    def calculateScore(self):
        self.score = self.waves

    def generatePossibleActions(self):
        self.possibleActions = {'wave flag': [['wave']]}
        for thing in ('hat', 'scarf', 'glove', 'boot'):
            self.possibleActions['look at ' + thing] = [['look', thing]]
        return self.possibleActions

    def step(self, actionStr):
        if actionStr not in self.possibleActions:
            return ("I don't understand that.", self.score, 0, self.gameOver, self.gameWon)
        self.numSteps += 1
        action = self.possibleActions[actionStr][0]
        for other in [k for k in self.possibleActions if k != actionStr]:
            del self.possibleActions[other]
        if action[0] == 'wave':
            self.waves += 1
        if self.waves >= 3:
            self.gameOver = True
            self.gameWon = True
        self.calculateScore()
        return ('ok', self.score, 0, self.gameOver, self.gameWon)
