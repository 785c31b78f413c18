// Scripted assistant turns for the session tests (pcglab's own, written for these tests; never
// presented as a model's output): a game built from the template over several turns, then turns
// that are malformed or whose code raises, loops or touches files, and a turn that repairs it.
#pragma once

#include <string>

namespace pcglab::poker::testing {

inline const std::string kConfigTurn = R"(<script>
script['Config']['Number of players'] = 4
script['Config']['Min bet'] = 20
</script>
<code>
def config(self):
    self.n_players = 4
    self.min_bet = 20
    self.max_bet = 1000
    self.suit = ['H', 'D', 'C', 'S']
    self.suit_have_rank = False
    self.value = [str(v) for v in range(2, 15)]
    self.card_combinations_rank = ['High Card', 'Pair', 'Two Pair', 'Three of a Kind', 'Straight',
                                   'Flush', 'Full House', 'Four of a Kind', 'Straight Flush']
</code>
<utter>Four players, minimum bet 20. How should the blind work?</utter>)";

inline const std::string kPhaseTurn = R"(<script>
script['Phase']['blind'] = 'One player picked at random posts twice the minimum bet.'
</script>
<code>
def set_flow(self):
    self.flow = ['start', 'shuffle', 'blind', 'deal2', 'bet', 'flop3', 'bet', 'show', 'prize']

def start(self):
    self.deck = [s + v for v in self.value for s in self.suit]
    self.community = []
    for pid in self.players:
        self.players[pid].hole = []
        self.players[pid].fold = False

def blind(self):
    pid = random.choice(self.player_ids)
    self.players[pid].bet += 2 * self.min_bet
    self.players[pid].remain -= 2 * self.min_bet
</code>
<utter>One random player posts a double blind. What order should the round follow?</utter>)";

inline const std::string kFlowTurn = R"(<script>
script['Flow'] = ['start', 'shuffle', 'blind', 'deal3', 'bet', 'flop2', 'bet', 'show', 'prize']
</script>
<code>
def set_flow(self):
    self.flow = ['start', 'shuffle', 'blind', 'deal3', 'bet', 'flop2', 'bet', 'show', 'prize']
</code>
<utter>Three cards each, two on the table. The game is complete.</utter>)";

inline const std::string kMissingCodeTurn = R"(<script>
script['Config']['Min bet'] = 5
</script>
<utter>I lowered the minimum bet.</utter>)";

// `<script>` holding arbitrary Python: never executed, refused naming its line.
inline std::string arbitrary_python_turn(const std::string& planted) {
  return "<script>\n__import__('os').system('touch " + planted +
         "')\n</script>\n<code>\n</code>\n<utter>Done.</utter>";
}

inline const std::string kRaisingTurn = R"(<script>
</script>
<code>
def blind(self):
    share = self.min_bet // 0
    self.players['p1'].bet += share
</code>
<utter>The blind is split now.</utter>)";

inline const std::string kLoopingTurn = R"(<script>
</script>
<code>
def shuffle(self):
    while True:
        pass
</code>
<utter>The deck is shuffled very thoroughly.</utter>)";

// Code that reads a file of the host (`path` exists outside the sandbox only).
inline std::string file_turn(const std::string& path) {
  return "<script>\n</script>\n<code>\ndef start(self):\n    with open('" + path +
         "') as f:\n        self.deck = f.read().split()\n    self.community = []\n</code>\n<utter>The deck "
         "comes from a file.</utter>";
}

inline const std::string kRepairTurn = R"(<script>
</script>
<code>
def start(self):
    self.deck = [s + v for v in self.value for s in self.suit]
    self.community = []
    for pid in self.players:
        self.players[pid].hole = []
        self.players[pid].fold = False

def shuffle(self):
    shuffle(self.deck)

def blind(self):
    pid = random.choice(self.player_ids)
    self.players[pid].bet += 2 * self.min_bet
    self.players[pid].remain -= 2 * self.min_bet
</code>
<utter>Repaired: the deck, the shuffle and the blind are back.</utter>)";

// What the page and the terminal must show as text, never as markup.
inline const std::string kHostileUtterTurn = R"(<script>
script['Config']['Min bet'] = 30
</script>
<code>
</code>
<utter>Minimum bet 30 <img src=x onerror="document.title='pwned'"><b>bold</b></utter>)";

}  // namespace pcglab::poker::testing
