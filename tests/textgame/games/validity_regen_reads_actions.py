# pcglab test game: its regeneration reads the stale action dictionary, which two leaves of different
# nodes can hold differently while the rest of their states is alike. `look` makes the player curious
# until the next step, and a curious player's actions include `hum`; from the third turn on,
# generatePossibleActions raises when the dictionary it replaces has `hum`. The first leaves crawled
# (below sit, sit) never see `hum`; the first error is at the first leaf below sit, look, whose state
# is a leaf's before it in all but the stale dictionary: a fresh-mode crawl that reuses a
# regeneration for a state seen before must include the dictionary in that state.


class TextGame:
    def __init__(self, randomSeed):
        self.turns = 0
        self.mood = None
        self.score = 0
        self.gameOver = False
        self.gameWon = False
        self.possibleActions = {}

    def getTaskDescription(self):
        return 'Pass the time.'

    def calculateScore(self):
        return self.score

    def generatePossibleActions(self):
        if self.turns >= 3 and 'hum' in self.possibleActions:
            raise ValueError('hummed')
        self.possibleActions = {verb: [verb] for verb in ('wait', 'look', 'jump', 'sit')}
        if self.mood == 'curious':
            self.possibleActions['hum'] = ['hum']
        return self.possibleActions

    def step(self, actionStr):
        self.turns += 1
        self.mood = 'curious' if actionStr == 'look' else None
        return ('You ' + actionStr + '.', self.score, 0, self.gameOver, self.gameWon)
