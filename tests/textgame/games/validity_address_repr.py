# pcglab test game: its observation shows the default repr of one of its objects, which names a memory
# address (`<validity_address_repr.Dial object at 0x7f...>`), as BYTESIZED32's hang-painting does
# ("You can't hammer <hang-painting.Nail object at 0x...> on ..."). Each step adds its number (one to
# four) to a total and shows the dial: states reached by different paths with the same total are the
# same state but for the address their observation shows. Every dial a step shows is kept alive
# (SHOWN), so no two copies of the game ever show the same address: a crawl whose state keys read the
# addresses finds no twin below different parents (16 nodes at depth 2, 0 twins); one whose keys are
# a function of the game alone finds the 9 that the 16 two-step totals (7 distinct) give. Winnable:
# four, four, four.
SHOWN = []
NUMBERS = {'one': 1, 'two': 2, 'three': 3, 'four': 4}


class Dial:
    pass


class TextGame:
    def __init__(self, randomSeed):
        self.dial = Dial()
        self.total = 0
        self.score = 0
        self.gameOver = False
        self.gameWon = False
        self.observationStr = 'The dial reads 0.'
        self.possibleActions = {}

    def getTaskDescription(self):
        return 'Turn the dial to twelve.'

    def calculateScore(self):
        return self.score

    def generatePossibleActions(self):
        self.possibleActions = {word: [[word]] for word in NUMBERS}
        return self.possibleActions

    def step(self, actionStr):
        self.total += NUMBERS[actionStr]
        SHOWN.append(self.dial)
        self.observationStr = 'The %s reads %d.' % (self.dial, self.total)
        if self.total == 12:
            self.gameOver = self.gameWon = True
        return (self.observationStr, self.score, 0, self.gameOver, self.gameWon)
