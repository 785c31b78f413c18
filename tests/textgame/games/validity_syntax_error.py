# pcglab test game: does not import (a syntax error on line 4).
class TextGame:
    def __init__(self, randomSeed)
        self.score = 0
