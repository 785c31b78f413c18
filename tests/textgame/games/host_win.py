# pcglab's own test game (tests/textgame): a locked door, a box with a key. Winnable in 3 steps:
# "open box", "take key", "unlock door". The key's colour comes from the seed. The possible actions
# depend on the state ("take key" only once the box is open), so a stale dictionary differs.
import random


class TextGame:
    def __init__(self, randomSeed):
        self.random = random.Random(randomSeed)
        self.colour = self.random.choice(['red', 'blue', 'green', 'brass'])
        self.boxOpen = False
        self.haveKey = False
        self.doorOpen = False
        self.numSteps = 0
        self.score = 0
        self.gameOver = False
        self.gameWon = False
        self.observationStr = 'You are in a small room with a closed box and a locked door.'
        self.possibleActions = {}
        self.calculateScore()

    def getTaskDescription(self):
        return 'Your task is to open the locked door.'

    def generatePossibleActions(self):
        actions = {}
        actions['look around'] = [['look']]
        actions['inventory'] = [['inventory']]
        actions['open box'] = [['open', 'box']]
        actions['close box'] = [['close', 'box']]
        if self.boxOpen and not self.haveKey:
            actions['take key'] = [['take', 'key']]
        actions['unlock door'] = [['unlock', 'door']]
        self.possibleActions = actions
        return actions

    def step(self, actionStr):
        if actionStr not in self.possibleActions:
            return ("I don't understand that.", self.score, 0, self.gameOver, self.gameWon)
        self.numSteps += 1
        verb = self.possibleActions[actionStr][0][0]
        if verb == 'look':
            self.observationStr = 'A room with a box (%s) and a door (%s).' % (
                'open' if self.boxOpen else 'closed', 'open' if self.doorOpen else 'locked')
        elif verb == 'inventory':
            self.observationStr = 'You have a %s key.' % self.colour if self.haveKey else 'You have nothing.'
        elif verb == 'open':
            self.boxOpen = True
            self.observationStr = 'You open the box.' + ('' if self.haveKey else ' Inside is a %s key.' % self.colour)
        elif verb == 'close':
            self.boxOpen = False
            self.observationStr = 'You close the box.'
        elif verb == 'take':
            self.haveKey = True
            self.observationStr = 'You take the %s key.' % self.colour
        elif verb == 'unlock':
            if self.haveKey:
                self.doorOpen = True
                self.observationStr = 'You unlock the door with the %s key.\nThe door swings open.' % self.colour
            else:
                self.observationStr = 'The door is locked. You need a key.'
        lastScore = self.score
        self.calculateScore()
        return (self.observationStr, self.score, self.score - lastScore, self.gameOver, self.gameWon)

    def calculateScore(self):
        self.score = int(self.boxOpen or self.haveKey) + int(self.haveKey) + int(self.doorOpen)
        if self.doorOpen:
            self.gameOver = True
            self.gameWon = True
