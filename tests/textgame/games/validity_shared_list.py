# pcglab test game (validity crawl): every action's argument is the box itself, the same list as the
# game's `box` attribute. A step adds to the box through the attribute and reads it through the action;
# the third item wins. A copy of a state must keep the two one list.
class TextGame:
    def __init__(self, randomSeed):
        self.box = []
        self.score = 0
        self.numSteps = 0
        self.gameOver = False
        self.gameWon = False

    def getTaskDescription(self):
        return 'Your task is to put three things in the box.'

    def calculateScore(self):
        self.score = len(self.box)

    def generatePossibleActions(self):
        self.possibleActions = {}
        for thing in ('apple', 'brick', 'cup', 'die', 'egg'):
            self.possibleActions['put ' + thing + ' in box'] = [['put', thing, self.box]]
        return self.possibleActions

    def step(self, actionStr):
        if actionStr not in self.possibleActions:
            return ("I don't understand that.", self.score, 0, self.gameOver, self.gameWon)
        self.numSteps += 1
        verb, thing, box = self.possibleActions[actionStr][0]
        self.box.append(thing)
        if len(box) >= 3:
            self.gameOver = True
            self.gameWon = True
        self.calculateScore()
        return ('You put the ' + thing + ' in the box.', self.score, 1, self.gameOver, self.gameWon)
