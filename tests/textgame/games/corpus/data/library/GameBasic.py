# pcglab's own stand-in for BYTESIZED32-Refactored's data/library/GameBasic.py (tests only): a base
# TextGame whose helpers the derived game uses, imported as data.library.GameBasic.


class TextGame:
    def __init__(self, randomSeed):
        self.numSteps = 0
        self.score = 0
        self.gameOver = False
        self.gameWon = False
        self.possibleActions = {}
        self.observationStr = self.initialObservation()
        self.calculateScore()

    def initialObservation(self):
        return ''

    def addAction(self, actionStr, args):
        self.possibleActions.setdefault(actionStr, []).append(args)

    def generatePossibleActions(self):
        self.possibleActions = {}
        self.addAction('look around', ['look'])
        return self.possibleActions

    def step(self, actionStr):
        if actionStr not in self.possibleActions:
            return ("I don't understand that.", self.score, 0, self.gameOver, self.gameWon)
        self.numSteps += 1
        self.observationStr = self.act(self.possibleActions[actionStr][0])
        lastScore = self.score
        self.calculateScore()
        return (self.observationStr, self.score, self.score - lastScore, self.gameOver, self.gameWon)
