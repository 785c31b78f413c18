"""Builds tests/data/poker/test_games.jsonl, pcglab's own test set in the official test.jsonl format.

One line per own test game (tests/poker/games/game01.py ... game10.py): {"script": YAML text of the
game's script (Config, Phase, Flow), "code": the game's methods at column 0}. The Config and Flow
come from the game's config() and set_flow(); the Phase descriptions are pcglab's own words for
the variant each game's first comment line names. Run from the repository root:
    /usr/bin/python3 tests/data/poker/make_test_games.py
"""
import json
import pathlib
import re
import textwrap

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[3]
GAMES = ROOT / 'tests' / 'poker' / 'games'
DEFAULT = json.loads((ROOT / 'src' / 'poker' / 'data' / 'default_script.json').read_text())

START = {
    'value-major': 'Build the deck value by value in rank order, and for each value every suit in '
                   'order; a card is its suit followed by its value. Clear the shared cards and give '
                   'every player an empty hand that has not folded.',
    'suit-major': 'Build the deck suit by suit in order, and for each suit every value in rank order. '
                  'Clear the shared cards; every player gets an empty hand, is back in the game and '
                  'has no bet on the table.',
    'product': 'Build the deck suit by suit in order, each suit running from the highest value down to '
               'the lowest. Clear the shared cards and give every player an empty hand that has not '
               'folded.',
}
BLIND = {
    'default': DEFAULT['Phase']['blind'],
    'half': 'Pick two different players at random: the first puts half the minimum bet (rounded down) '
            'into the pot, the second the whole minimum bet.',
    'double': 'Pick two different players at random: the first puts the minimum bet into the pot, the '
              'second twice the minimum bet.',
    'quarter': 'Pick two different players at random: the first puts a quarter of the minimum bet '
               '(rounded down) into the pot, the second the whole minimum bet.',
}
DEAL = {
    'default': DEFAULT['Phase']['dealx'],
    'burn-after': 'Give every player x cards from the top of the deck, one card to each player per '
                  'pass; then throw away the next card of the deck.',
    'player-major': 'Each player in turn takes x cards from the top of the deck before the next player '
                    'gets any.',
    'front': 'Give every player x cards, one card to each player per pass, taken from the bottom of '
             'the deck instead of the top.',
}
FLOP = {
    'default': DEFAULT['Phase']['flopx'],
    'burn-each': 'Throw away the top card of the deck; then x times, turn the next card face up on the '
                 'table and throw away the one after it.',
    'no-burn': 'Turn the top x cards of the deck face up on the table; nothing is thrown away.',
    'reshuffle': 'Shuffle the deck again, throw away its top card, then turn the next x cards face up '
                 'on the table.',
}


def variants(first_line, number):
    if number == 1:  # the spec's worked example
        return {'start': 'value-major', 'blind': 'quarter', 'deal': 'burn-after', 'flop': 'burn-each'}
    found = dict(re.findall(r'(start|blind|deal|flop|bet_done) ([a-z-]+)', first_line))
    return found


def config_of(source):
    class Self:
        pass
    namespace = {}
    body = source.split('class CustomGame(GameBase):', 1)[1]
    exec(textwrap.dedent(body), {'product': None}, namespace)  # only the method definitions
    me = Self()
    namespace['config'](me)
    namespace['set_flow'](me)
    return me


def methods_text(source):
    body = source.split('class CustomGame(GameBase):\n', 1)[1]
    return textwrap.dedent(body).strip() + '\n'


def script_of(path, number):
    source = path.read_text()
    me = config_of(source)
    v = variants(source.splitlines()[0], number)
    phase = dict(DEFAULT['Phase'])
    phase['start'] = START[v['start']]
    phase['blind'] = BLIND[v['blind']]
    phase['dealx'] = DEAL[v['deal']]
    phase['flopx'] = FLOP[v['flop']]
    config = {
        'Number of players': me.n_players,
        'Min bet': me.min_bet,
        'Max bet': me.max_bet,
        'Suit': me.suit,
        'Suit have rank': me.suit_have_rank,
        'Card value rank': me.value,
        'Card combinations rank': me.card_combinations_rank,
    }
    return {'Config': config, 'Phase': phase, 'Flow': me.flow}, methods_text(source)


def main():
    lines = []
    for number in range(1, 11):
        script, code = script_of(GAMES / f'game{number:02d}.py', number)
        text = yaml.dump(script, sort_keys=False, allow_unicode=True, width=100)
        lines.append(json.dumps({'script': text, 'code': code}, ensure_ascii=False))
    (ROOT / 'tests' / 'data' / 'poker' / 'test_games.jsonl').write_text('\n'.join(lines) + '\n')


if __name__ == '__main__':
    main()
