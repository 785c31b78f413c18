# pcglab test game: imports, but defines no TextGame (nor any class whose name ends in Game).
class World:
    pass
