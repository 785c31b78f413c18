# pcglab test game: the state is a set of strings, and each action adds one. To depth 3 the crawl
# reaches the same set by different orders ({a, b} by "add a" then "add b" and by the reverse), and
# shares the subtree of a node whose state (its snapshot bytes) was seen before. A set's pickle lists
# its strings in the set's iteration order, which for colliding strings depends on the insertion
# order and on Python's string hash, randomised per process unless PYTHONHASHSEED is set: so how many
# nodes are shared, and the step calls of the crawl, follow the hash seed; the sequences do not.
NAMES = ['n%02d' % i for i in range(14)]


class TextGame:
    def __init__(self, randomSeed):
        self.items = set()
        self.score = 0
        self.gameOver = False
        self.gameWon = False
        self.possibleActions = {}

    def getTaskDescription(self):
        return 'Collect.'

    def calculateScore(self):
        return self.score

    def generatePossibleActions(self):
        self.possibleActions = {'add ' + n: ['add', n] for n in NAMES}
        return self.possibleActions

    def step(self, actionStr):
        self.items.add(self.possibleActions[actionStr][1])
        return ('You take ' + actionStr[4:] + '.', self.score, 0, self.gameOver, self.gameWon)
