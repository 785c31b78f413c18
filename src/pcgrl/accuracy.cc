#include "pcgrl/accuracy.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <set>

#include <fmt/format.h>

#include "core/check.h"

namespace pcglab::pcgrl {
namespace {

constexpr int kMaxKeys = 30;
constexpr int kCheckDistance = 2;  // the 5×5 enemy window
// The official code keeps each leg's cells in a buffer of ceil(16·16/2)+16 = 144 cells, filled by
// tracing back from the leg's target; cells past the end are dropped. So on a leg of 145 cells or
// more only the last 144 (those nearest the target) are checked for other keys and for enemies.
constexpr size_t kPathBufferCells = kCells / 2 + kMapSize;
static_assert(kPathBufferCells == 144);

// The cells of `path` the official code sees: its last kPathBufferCells.
std::pair<Path::const_iterator, Path::const_iterator> official_cells(const Path& path) {
  const size_t skip = path.size() > kPathBufferCells ? path.size() - kPathBufferCells : 0;
  return {path.begin() + static_cast<std::ptrdiff_t>(skip), path.end()};
}

std::array<bool, kTileTypes> all_but_walls() {
  std::array<bool, kTileTypes> p{};
  p.fill(true);
  p[kBorder] = false;
  p[kWall] = false;
  return p;
}

int enemy_index(uint8_t tile) {
  switch (tile) {
    case kBat: return 0;
    case kScorpion: return 1;
    case kSpider: return 2;
    default: return -1;
  }
}

}  // namespace

Path shortest_path(const Map& map, int source, int target, const std::array<bool, kTileTypes>& passable) {
  std::array<int, kCells> dist;
  dist.fill(-1);
  dist[source] = 0;
  std::deque<int> queue{source};
  while (!queue.empty() && dist[target] < 0) {
    const int cell = queue.front();
    queue.pop_front();
    for_each_neighbour(cell, [&](int next) {
      if (dist[next] >= 0 || !passable[map[next]]) return;
      dist[next] = dist[cell] + 1;
      queue.push_back(next);
    });
  }
  if (dist[target] < 0) return {};
  // Rebuilt from the target: the first neighbour (up, left, right, down) one step closer.
  Path path{target};
  for (int cell = target; cell != source;) {
    int closer = -1;
    for_each_neighbour(cell, [&](int next) {
      if (closer < 0 && dist[next] >= 0 && dist[next] == dist[cell] - 1) closer = next;
    });
    PCGLAB_CHECK(closer >= 0) << "broken BFS path";
    path.push_back(closer);
    cell = closer;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

std::array<bool, 3> parse_scenario(std::string_view enemies) {
  std::array<bool, 3> out{};
  size_t start = 0;
  while (start <= enemies.size()) {
    size_t end = enemies.find(',', start);
    if (end == std::string_view::npos) end = enemies.size();
    std::string name(enemies.substr(start, end - start));
    for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (name == "bat") {
      out[0] = true;
    } else if (name == "scorpion") {
      out[1] = true;
    } else if (name == "spider") {
      out[2] = true;
    } else {
      throw SetupError(
          fmt::format("unknown enemy \"{}\" in scenario \"{}\" (use bat, scorpion, spider)", name, enemies));
    }
    start = end + 1;
  }
  return out;
}

LevelEvaluation evaluate_level(const Map& map, const std::array<bool, 3>& scenario) {
  LevelEvaluation ev;
  const auto player_it = std::find(map.begin(), map.end(), kPlayer);
  const auto door_it = std::find(map.begin(), map.end(), kDoor);
  if (player_it == map.end() || door_it == map.end()) return ev;
  const int player = static_cast<int>(player_it - map.begin());
  const int door = static_cast<int>(door_it - map.begin());
  const auto passable = all_but_walls();
  const Path to_exit = shortest_path(map, player, door, passable);
  ev.playable = !to_exit.empty();
  ev.path_length = ev.playable ? static_cast<int>(to_exit.size()) - 1 : 0;

  std::vector<int> keys;
  for (int cell = 0; cell < kCells && static_cast<int>(keys.size()) < kMaxKeys; ++cell) {
    if (map[cell] == kKey) keys.push_back(cell);
  }
  std::array<std::set<int>, 3> met;
  for (int key : keys) {
    Path to_key = shortest_path(map, player, key, passable);
    const Path to_door = shortest_path(map, key, door, passable);
    if (to_key.size() < 2 || to_door.size() < 2) continue;  // both lengths must be > 0
    // Prefer an equally short path that avoids the other keys (target key treated as EMPTY).
    Map without_keys = map;
    for (int other : keys) {
      if (other != key) without_keys[other] = kWall;
    }
    without_keys[key] = kEmpty;
    std::array<bool, kTileTypes> restricted{};
    for (uint8_t t : {kEmpty, kPlayer, kBat, kScorpion, kSpider, kDoor}) restricted[t] = true;
    const Path avoiding = shortest_path(without_keys, player, key, restricted);
    if (!avoiding.empty() && avoiding.size() == to_key.size()) to_key = avoiding;
    // Unique-key check on the player->key leg only, against the capped list of keys (a key past
    // the 30th in row-major order does not block), over the cells the official buffer holds.
    const auto [first, last] = official_cells(to_key);
    const bool other_key_on_path = std::any_of(first, last, [&](int cell) {
      return cell != key && std::find(keys.begin(), keys.end(), cell) != keys.end();
    });
    if (other_key_on_path) continue;
    ++ev.solutions;
    for (const Path* leg : std::array<const Path*, 2>{&to_key, &to_door}) {
      const auto [begin, end] = official_cells(*leg);
      for (auto it = begin; it != end; ++it) {
        const int cell = *it;
        const int r = cell / kMapSize;
        const int c = cell % kMapSize;
        for (int rr = std::max(0, r - kCheckDistance); rr <= std::min(kMapSize - 1, r + kCheckDistance);
             ++rr) {
          for (int cc = std::max(0, c - kCheckDistance); cc <= std::min(kMapSize - 1, c + kCheckDistance);
               ++cc) {
            const int e = enemy_index(map[rr * kMapSize + cc]);
            if (e >= 0) met[e].insert(rr * kMapSize + cc);
          }
        }
      }
    }
  }
  for (int e = 0; e < 3; ++e) ev.encountered[e] = static_cast<int>(met[e].size());
  ev.solvable = ev.solutions > 0;
  if (ev.solutions > 0) {
    int agree = 0;
    for (int e = 0; e < 3; ++e) agree += scenario[e] == (ev.encountered[e] > 0) ? 1 : 0;
    ev.accuracy = agree / 3.0;
  }
  return ev;
}

double mean_accuracy(const std::vector<Map>& levels, const std::array<bool, 3>& scenario) {
  if (levels.empty()) return 0;
  double sum = 0;
  for (const Map& m : levels) sum += evaluate_level(m, scenario).accuracy;
  return sum / static_cast<double>(levels.size());
}

namespace {

int tile_of_char(char c) {
  if (c >= '0' && c <= '8') return c - '0';
  switch (c) {
    case '#': return kWall;
    case '.': return kEmpty;
    case '@': return kPlayer;
    case 'b': return kBat;
    case 's': return kScorpion;
    case 'p': return kSpider;
    case 'k': return kKey;
    case 'D': return kDoor;
    default: return -1;
  }
}

// A character for an error message: itself when printable ASCII, else its code.
std::string printable(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x20 && u < 0x7f ? std::string(1, c) : fmt::format("\\x{:02x}", u);
}

}  // namespace

std::vector<Map> parse_levels(std::string_view text, const std::string& source) {
  std::vector<Map> levels;
  Map current{};
  int rows = 0;
  int line_no = 0;
  auto finish = [&](int at_line) {
    if (rows == 0) return;
    if (rows != kMapSize) {
      throw InputError(fmt::format("{}:{}: level has {} rows, expected {}", source, at_line, rows, kMapSize));
    }
    levels.push_back(current);
    rows = 0;
  };
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    std::vector<int> tiles;
    bool header = false;
    for (size_t col = 0; col < line.size(); ++col) {
      const char c = line[col];
      if (c == ' ' || c == '\t' || c == ',' || c == '[' || c == ']' || c == '\r') continue;
      const int t = tile_of_char(c);
      if (t >= 0) {
        tiles.push_back(t);
        continue;
      }
      // A line that starts with text ("Level Id 3:") is a header, unless it interrupts a level; a
      // bad character after tiles is a bad tile.
      if (tiles.empty() && (rows == 0 || rows == kMapSize)) {
        header = true;
        break;
      }
      throw InputError(fmt::format("{}:{}:{}: '{}' is not a tile (digits 0-8 or # . @ b s p k D){}", source,
                                   line_no, col + 1, printable(c),
                                   tiles.empty()
                                       ? fmt::format(" (the level above has {} of {} rows)", rows, kMapSize)
                                       : std::string()));
    }
    if (header || tiles.empty()) {
      finish(line_no);
      continue;
    }
    if (tiles.size() != kMapSize) {
      throw InputError(
          fmt::format("{}:{}: row has {} tiles, expected {}", source, line_no, tiles.size(), kMapSize));
    }
    if (rows == kMapSize) finish(line_no);
    for (int c = 0; c < kMapSize; ++c) current[rows * kMapSize + c] = static_cast<uint8_t>(tiles[c]);
    ++rows;
  }
  finish(line_no);
  if (levels.empty()) throw InputError(fmt::format("{}: no level found (16 rows of 16 tiles)", source));
  return levels;
}

std::string format_level(const Map& map) {
  std::string out;
  for (int r = 0; r < kMapSize; ++r) {
    for (int c = 0; c < kMapSize; ++c) {
      out += static_cast<char>('0' + map[r * kMapSize + c]);
      out += c + 1 < kMapSize ? " " : "\n";
    }
  }
  return out;
}

}  // namespace pcglab::pcgrl
