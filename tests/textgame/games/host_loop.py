# pcglab's own test game: generatePossibleActions never returns.


class TextGame:
    def __init__(self, randomSeed):
        self.numSteps = 0
        self.observationStr = 'An endless corridor.'

    def getTaskDescription(self):
        return 'Your task is to reach the end of the corridor.'

    def generatePossibleActions(self):
        actions = {}
        n = 0
        while True:
            n += 1
            actions['walk %d' % (n % 10)] = [['walk']]
        return actions

    def step(self, actionStr):
        return ('You walk.', 0, 0, False, False)

    def calculateScore(self):
        self.score = 0
