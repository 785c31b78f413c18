# pcglab's own test game: step returns only the observation; getTaskDescription a list.


class TextGame:
    def __init__(self, randomSeed):
        self.numSteps = 0
        self.observationStr = 'A room.'

    def getTaskDescription(self):
        return ['Your task is', 'to wait.']

    def generatePossibleActions(self):
        return {'wait': [['wait']]}

    def step(self, actionStr):
        return 'You wait.'

    def calculateScore(self):
        self.score = 0
