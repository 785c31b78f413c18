# pcglab test game: its __init__ reads a file the host wrote to /tmp (the sandbox's /tmp is its own).
class TextGame:
    def __init__(self, randomSeed):
        with open('/tmp/pcglab-validity-secret.txt') as f:
            self.secret = f.read()
