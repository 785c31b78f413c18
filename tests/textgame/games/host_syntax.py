# pcglab's own test game: a syntax error on line 4.

class TextGame:
    def __init__(self randomSeed):
        pass
