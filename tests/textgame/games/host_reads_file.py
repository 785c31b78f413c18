# pcglab's own test game: its task description comes from a file, which a text game may not read.


class TextGame:
    def __init__(self, randomSeed):
        self.numSteps = 0
        self.observationStr = 'A library.'

    def getTaskDescription(self):
        try:
            with open('/etc/hostname') as f:
                return 'Your task is to find ' + f.read()
        except OSError:
            return 'Your task is to find the book.'

    def generatePossibleActions(self):
        return {'look': [['look']]}

    def step(self, actionStr):
        return ('A library.', 0, 0, False, False)

    def calculateScore(self):
        self.score = 0
