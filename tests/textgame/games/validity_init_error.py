# pcglab test game: TextGame(randomSeed) raises.
class TextGame:
    def __init__(self, randomSeed):
        self.rooms = {}
        self.start = self.rooms['kitchen']
