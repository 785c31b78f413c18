# pcglab test game: runnable, winnable in 3 steps (open chest, take key, unlock door), lost by
# pulling the lever. Keeps its state on the game object, as the corpus games do.
import random


class TextGame:
    def __init__(self, randomSeed):
        self.random = random.Random(randomSeed)
        self.state = {'chest': 'closed', 'key': 'in chest', 'door': 'locked'}
        self.numSteps = 0
        self.score = 0
        self.gameOver = False
        self.gameWon = False
        self.observationStr = 'You are in a small room.'
        self.possibleActions = {}
        self.calculateScore()

    def getTaskDescription(self):
        return 'Your task is to unlock the door.'

    def generatePossibleActions(self):
        self.possibleActions = {'look around': ['look'], 'open chest': ['open'], 'close chest': ['close'],
                                'pull lever': ['pull'], 'wait': ['wait']}
        if self.state['chest'] == 'open' and self.state['key'] == 'in chest':
            self.possibleActions['take key'] = ['take']
        if self.state['key'] == 'held':
            self.possibleActions['unlock door with key'] = ['unlock']
        return self.possibleActions

    def step(self, actionStr):
        if actionStr not in self.possibleActions:
            self.observationStr = "I don't understand that."
            return (self.observationStr, self.score, 0, self.gameOver, self.gameWon)
        self.numSteps += 1
        verb = self.possibleActions[actionStr][0]
        if verb == 'open':
            self.state['chest'] = 'open'
        elif verb == 'close':
            self.state['chest'] = 'closed'
        elif verb == 'take':
            self.state['key'] = 'held'
        elif verb == 'unlock':
            self.state['door'] = 'open'
        elif verb == 'pull':
            self.gameOver = True
        self.observationStr = 'You ' + actionStr + '.'
        last = self.score
        self.calculateScore()
        return (self.observationStr, self.score, self.score - last, self.gameOver, self.gameWon)

    def calculateScore(self):
        self.score = 1 if self.state['door'] == 'open' else 0
        if self.score:
            self.gameOver = self.gameWon = True
