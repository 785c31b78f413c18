# pcglab's own test game: generatePossibleActions returns a million actions.


class TextGame:
    def __init__(self, randomSeed):
        self.numSteps = 0
        self.observationStr = 'A warehouse of a million boxes.'

    def getTaskDescription(self):
        return 'Your task is to open the right box.'

    def generatePossibleActions(self):
        return {'open box %d' % i: [['open', i]] for i in range(1000000)}

    def step(self, actionStr):
        return ('Empty.', 0, 0, False, False)

    def calculateScore(self):
        self.score = 0
