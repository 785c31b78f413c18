# A kitchen for pcglab's validity tests and benchmark (pcglab's own game, in the BYTESIZED32 API):
# ~150 actions per state over 10 verbs. Won by putting the milk in the fridge and closing it; lost by
# eating the soap.
import random


class Thing:
    def __init__(self, name, container=False, openable=False, device=False, edible=False):
        self.name = name
        self.parent = None
        self.contains = []
        self.properties = {'isContainer': container, 'isOpenable': openable, 'isOpen': not openable,
                           'isDevice': device, 'isOn': False, 'isEdible': edible, 'temperature': 20.0}

    def add(self, obj):
        if obj.parent is not None:
            obj.parent.contains.remove(obj)
        obj.parent = self
        self.contains.append(obj)

    def all_contained(self):
        out = []
        for obj in self.contains:
            out.append(obj)
            out.extend(obj.all_contained())
        return out

    def tick(self):
        if self.properties['isDevice'] and self.properties['isOn']:
            for obj in self.contains:
                obj.properties['temperature'] += 10.0

    def describe(self):
        text = 'a ' + self.name
        if self.properties['isOpenable']:
            text += ' (open)' if self.properties['isOpen'] else ' (closed)'
        if self.properties['isContainer'] and self.properties['isOpen'] and self.contains:
            text += ' containing ' + ', '.join(o.describe() for o in self.contains)
        return text


class TextGame:
    def __init__(self, randomSeed):
        self.random = random.Random(randomSeed)
        self.root = Thing('kitchen', container=True)
        self.agent = Thing('inventory', container=True)
        self.root.add(self.agent)
        boxes = [Thing('fridge', True, True), Thing('cupboard', True, True), Thing('drawer', True, True),
                 Thing('oven', True, True, device=True), Thing('sink', True), Thing('bowl', True)]
        items = [Thing('milk', edible=True), Thing('apple', edible=True), Thing('bread', edible=True),
                 Thing('soap', edible=True), Thing('fork'), Thing('spoon'), Thing('cup', True),
                 Thing('plate', True), Thing('knife'), Thing('towel'), Thing('egg', edible=True), Thing('jar', True, True)]
        for box in boxes:
            self.root.add(box)
        self.random.shuffle(items)
        for i, item in enumerate(items):
            (self.root if i % 3 == 0 else boxes[i % len(boxes)]).add(item)
        self.fridge = boxes[0]
        self.numSteps = 0
        self.score = 0
        self.gameOver = False
        self.gameWon = False
        self.observationStr = 'You are in a kitchen.'
        self.possibleActions = {}
        self.calculateScore()

    def getTaskDescription(self):
        return 'Your task is to put the milk in the fridge and close it.'

    def addAction(self, actionStr, args):
        self.possibleActions.setdefault(actionStr, []).append(args)

    def generatePossibleActions(self):
        self.possibleActions = {}
        objects = self.root.all_contained()
        containers = [o for o in objects if o.properties['isContainer'] and o is not self.agent]
        self.addAction('look around', ['look around'])
        self.addAction('inventory', ['inventory'])
        for obj in objects:
            if obj is self.agent:
                continue
            self.addAction('examine ' + obj.name, ['examine', obj])
            if not obj.properties['isContainer'] or obj.name in ('cup', 'plate', 'jar'):
                self.addAction('take ' + obj.name, ['take', obj])
                for box in containers:
                    if box is not obj:
                        self.addAction('put ' + obj.name + ' in ' + box.name, ['put', obj, box])
            if obj.properties['isOpenable']:
                self.addAction('open ' + obj.name, ['open', obj])
                self.addAction('close ' + obj.name, ['close', obj])
            if obj.properties['isDevice']:
                self.addAction('turn on ' + obj.name, ['turn on', obj])
                self.addAction('turn off ' + obj.name, ['turn off', obj])
            if obj.properties['isEdible']:
                self.addAction('eat ' + obj.name, ['eat', obj])
        return self.possibleActions

    def reachable(self, obj):
        parent = obj.parent
        while parent is not None and parent is not self.root:
            if not parent.properties['isOpen'] and parent is not self.agent:
                return False
            parent = parent.parent
        return True

    def step(self, actionStr):
        if actionStr not in self.possibleActions:
            self.observationStr = "I don't understand that."
            return (self.observationStr, self.score, 0, self.gameOver, self.gameWon)
        self.numSteps += 1
        action = self.possibleActions[actionStr][0]
        verb = action[0]
        if verb == 'look around':
            self.observationStr = 'You see ' + ', '.join(o.describe() for o in self.root.contains) + '.'
        elif verb == 'inventory':
            self.observationStr = 'You carry ' + (', '.join(o.name for o in self.agent.contains) or 'nothing') + '.'
        elif verb == 'examine':
            self.observationStr = 'You see ' + action[1].describe() + '.'
        elif verb == 'take':
            if self.reachable(action[1]):
                self.agent.add(action[1])
                self.observationStr = 'You take the ' + action[1].name + '.'
            else:
                self.observationStr = 'You cannot reach the ' + action[1].name + '.'
        elif verb == 'put':
            obj, box = action[1], action[2]
            if obj.parent is not self.agent:
                self.observationStr = 'You are not holding the ' + obj.name + '.'
            elif not box.properties['isOpen']:
                self.observationStr = 'The ' + box.name + ' is closed.'
            else:
                box.add(obj)
                self.observationStr = 'You put the ' + obj.name + ' in the ' + box.name + '.'
        elif verb in ('open', 'close'):
            action[1].properties['isOpen'] = verb == 'open'
            self.observationStr = 'The ' + action[1].name + ' is now ' + verb + ('ed.' if verb == 'open' else 'd.')
        elif verb in ('turn on', 'turn off'):
            action[1].properties['isOn'] = verb == 'turn on'
            self.observationStr = 'The ' + action[1].name + ' is ' + verb[5:] + '.'
        elif verb == 'eat':
            obj = action[1]
            if obj.parent is self.agent:
                obj.parent.contains.remove(obj)
                obj.parent = None
                self.observationStr = 'You eat the ' + obj.name + '.'
                if obj.name == 'soap':
                    self.gameOver = True
            else:
                self.observationStr = 'You are not holding the ' + obj.name + '.'
        for obj in self.root.all_contained():
            obj.tick()
        last = self.score
        self.calculateScore()
        return (self.observationStr, self.score, self.score - last, self.gameOver, self.gameWon)

    def calculateScore(self):
        self.score = 0
        milk = [o for o in self.fridge.contains if o.name == 'milk']
        if milk:
            self.score += 1
            if not self.fridge.properties['isOpen']:
                self.score += 1
                self.gameOver = True
                self.gameWon = True


def main():
    game = TextGame(randomSeed=0)
    possibleActions = game.generatePossibleActions()
    print('Task Description: ' + game.getTaskDescription())
    while True:
        actionStr = input('> ')
        observationStr, score, reward, gameOver, gameWon = game.step(actionStr)
        possibleActions = game.generatePossibleActions()
        print(observationStr, len(possibleActions))


if __name__ == '__main__':
    main()
