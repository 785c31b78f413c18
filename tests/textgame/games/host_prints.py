# pcglab's own test game: it prints while it runs, as the corpus games' debugging prints do, and its
# observation has a trailing space, a tab and a final newline.


class TextGame:
    def __init__(self, randomSeed):
        print('debug: init with seed', randomSeed)
        self.numSteps = 0
        self.observationStr = 'A noisy room.'

    def getTaskDescription(self):
        return 'Your task is to listen.'

    def generatePossibleActions(self):
        self.possibleActions = {'listen': [['listen']]}
        return self.possibleActions

    def step(self, actionStr):
        self.numSteps += 1
        print('debug: step', actionStr)
        return ('You hear yourself. \n\tand an echo\n', 0, 0, self.numSteps >= 2, False)

    def calculateScore(self):
        self.score = 0
