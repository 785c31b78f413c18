# pcglab's own test game in the refactored corpus's style: derived from GameBasic's TextGame under a
# name of its own. Winnable in 2 steps: "light lamp", "read book".
from data.library.GameBasic import *


class LampGame(TextGame):
    def initialObservation(self):
        self.lampOn = False
        self.bookRead = False
        return 'A dark study with a lamp and a book.'

    def getTaskDescription(self):
        return 'Your task is to read the book.'

    def generatePossibleActions(self):
        TextGame.generatePossibleActions(self)
        self.addAction('light lamp', ['light'])
        self.addAction('read book', ['read'])
        return self.possibleActions

    def act(self, args):
        if args[0] == 'light':
            self.lampOn = True
            return 'The lamp glows.'
        if args[0] == 'read':
            if not self.lampOn:
                return 'It is too dark to read.'
            self.bookRead = True
            return 'You read the book.'
        return 'A study with a lamp (%s) and a book.' % ('on' if self.lampOn else 'off')

    def calculateScore(self):
        self.score = int(self.lampOn) + int(self.bookRead)
        self.gameOver = self.gameWon = self.bookRead


class ZLampHelperGame(TextGame):
    pass
