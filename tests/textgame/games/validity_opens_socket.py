# pcglab test game: its __init__ opens a TCP connection to 127.0.0.1 (the sandbox has no network).
import socket


class TextGame:
    def __init__(self, randomSeed):
        self.connection = socket.create_connection(('127.0.0.1', 80), timeout=5)
