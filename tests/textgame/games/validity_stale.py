# pcglab test game with the stale-action quirk. "open box" makes "take gem" available (which wins);
# "swap coin" replaces the coin by a new object of the same name. The official crawl steps with the
# dictionary generated once after init: "take gem" is unknown there (so it finds no win), and
# "take coin" after "swap coin" refers to the old coin, no longer in the room (so it invents an
# error). With the actions regenerated after every step (fresh), the game is valid and winnable.
class Thing:
    def __init__(self, name):
        self.name = name


class TextGame:
    def __init__(self, randomSeed):
        self.gameOver = self.gameWon = False
        self.score = 0
        self.room = [Thing('coin'), Thing('box')]
        self.inventory = []
        self.box_open = False
        self.possibleActions = {}

    def getTaskDescription(self):
        return 'Your task is to take the gem.'

    def calculateScore(self):
        self.score = 1 if any(t.name == 'gem' for t in self.inventory) else 0
        if self.score:
            self.gameOver = self.gameWon = True

    def generatePossibleActions(self):
        self.possibleActions = {'open box': [['open']], 'swap coin': [['swap']]}
        for thing in self.room:
            if thing.name == 'coin':
                self.possibleActions['take coin'] = [['take', thing]]
        if self.box_open:
            self.possibleActions['take gem'] = [['gem']]
        return self.possibleActions

    def step(self, actionStr):
        if actionStr not in self.possibleActions:
            return ("I don't understand that.", self.score, 0, self.gameOver, self.gameWon)
        action = self.possibleActions[actionStr][0]
        if action[0] == 'open':
            self.box_open = True
        elif action[0] == 'swap':
            self.room = [t for t in self.room if t.name != 'coin'] + [Thing('coin')]
        elif action[0] == 'take':
            self.room.remove(action[1])
            self.inventory.append(action[1])
        elif action[0] == 'gem':
            self.inventory.append(Thing('gem'))
        self.calculateScore()
        return ('ok', self.score, 0, self.gameOver, self.gameWon)
