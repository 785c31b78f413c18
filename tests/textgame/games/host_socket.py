# pcglab's own test game: it opens a socket in step.
import socket


class TextGame:
    def __init__(self, randomSeed):
        self.numSteps = 0
        self.observationStr = 'A telephone.'

    def getTaskDescription(self):
        return 'Your task is to make a call.'

    def generatePossibleActions(self):
        return {'call': [['call']]}

    def step(self, actionStr):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.connect(('127.0.0.1', 9))
        return ('Ring.', 0, 0, False, False)

    def calculateScore(self):
        self.score = 0
