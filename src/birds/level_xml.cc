#include "birds/level_xml.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "core/check.h"
#include "core/files.h"
#include "core/unicode.h"

namespace pcglab::birds {
namespace {

constexpr std::array<std::string_view, 12> kBlockTypes = {
    "SquareHole", "RectFat", "SquareSmall",  "SquareTiny", "RectTiny", "RectSmall",
    "RectMedium", "RectBig", "TriangleHole", "Triangle",   "Circle",   "CircleSmall"};
constexpr std::array<std::string_view, 3> kPigTypes = {"BasicSmall", "BasicMedium", "BasicBig"};
constexpr std::array<std::string_view, 5> kBirdTypes = {"BirdRed", "BirdBlue", "BirdYellow", "BirdBlack",
                                                        "BirdWhite"};

template <size_t N>
bool contains(const std::array<std::string_view, N>& list, std::string_view s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// Bytes to UTF-8: UTF-16 with a BOM (LE or BE) is converted; a UTF-8 BOM is dropped.
std::string to_utf8(std::string_view bytes, const std::string& source) {
  if (bytes.size() >= 2 &&
      ((bytes[0] == '\xFF' && bytes[1] == '\xFE') || (bytes[0] == '\xFE' && bytes[1] == '\xFF'))) {
    const bool little = bytes[0] == '\xFF';
    if (bytes.size() % 2 != 0)
      throw InputError(fmt::format("{}:1: UTF-16 file has an odd number of bytes", source));
    std::u16string units;
    for (size_t i = 2; i + 1 < bytes.size(); i += 2) {
      const auto lo = static_cast<unsigned char>(bytes[little ? i : i + 1]);
      const auto hi = static_cast<unsigned char>(bytes[little ? i + 1 : i]);
      units.push_back(static_cast<char16_t>(lo | (hi << 8)));
    }
    return utf16_to_utf8(units);
  }
  if (bytes.size() >= 3 && bytes.substr(0, 3) == "\xEF\xBB\xBF") return std::string(bytes.substr(3));
  return std::string(bytes);
}

int line_of(const std::string& text, ptrdiff_t offset) {
  if (offset < 0) return 0;
  const auto end = text.begin() + std::min<ptrdiff_t>(offset, static_cast<ptrdiff_t>(text.size()));
  return 1 + static_cast<int>(std::count(text.begin(), end, '\n'));
}

class Reader {
 public:
  Reader(std::string text, std::string source) : text_(std::move(text)), source_(std::move(source)) {}

  Level read() {
    // Let the XML declaration's encoding be ignored: the bytes are already UTF-8.
    const pugi::xml_parse_result ok = doc_.load_buffer(
        text_.data(), text_.size(), pugi::parse_default | pugi::parse_declaration, pugi::encoding_utf8);
    if (!ok) fail(ok.offset, fmt::format("malformed XML: {}", ok.description()));
    const pugi::xml_node root = doc_.document_element();
    if (std::string_view(root.name()) != "Level")
      fail(root, fmt::format("root element is <{}>, expected <Level>", root.name()));
    Level level;
    level.width = integer(root, "width", 3);
    for (const pugi::xml_node child : root.children()) {
      if (child.type() != pugi::node_element) continue;
      const std::string_view name = child.name();
      if (name == "Camera") {
        level.camera = Camera{number(child, "x"), number(child, "y"), number(child, "minWidth"),
                              number(child, "maxWidth")};
      } else if (name == "Birds") {
        for (const pugi::xml_node bird : child.children()) {
          if (bird.type() != pugi::node_element) continue;
          if (std::string_view(bird.name()) != "Bird")
            fail(bird, fmt::format("unknown element <{}> in <Birds>", bird.name()));
          const std::string type = text(bird, "type");
          if (!is_bird_type(type)) fail(bird, fmt::format("unknown bird type \"{}\"", type));
          level.birds.push_back(Bird{type});
        }
      } else if (name == "Slingshot") {
        level.slingshot = Slingshot{number(child, "x"), number(child, "y")};
      } else if (name == "GameObjects") {
        read_objects(child, level);
      } else if (name == "Score") {
        // Some Science Birds generators add <Score highScore="..."/>; it has no effect here.
      } else {
        fail(child, fmt::format("unknown element <{}> in <Level>", name));
      }
    }
    return level;
  }

 private:
  void read_objects(const pugi::xml_node objects, Level& level) {
    for (const pugi::xml_node o : objects.children()) {
      if (o.type() != pugi::node_element) continue;
      const std::string_view name = o.name();
      const auto read_pose = [&](auto& object) {  // every object has a centre and a rotation
        object.x = number(o, "x");
        object.y = number(o, "y");
        object.rotation = number(o, "rotation", 0);
      };
      if (name == "Block") {
        Block b;
        b.type = text(o, "type");
        if (!is_block_type(b.type)) fail(o, fmt::format("unknown block type \"{}\"", b.type));
        const std::string material = text(o, "material");
        if (!parse_material(material, b.material))
          fail(o, fmt::format("unknown material \"{}\" (wood, stone or ice)", material));
        read_pose(b);
        level.blocks.push_back(b);
      } else if (name == "Pig") {
        Pig p;
        p.type = text(o, "type");
        if (!is_pig_type(p.type)) fail(o, fmt::format("unknown pig type \"{}\"", p.type));
        read_pose(p);
        level.pigs.push_back(p);
      } else if (name == "TNT") {
        Tnt t;
        t.type = o.attribute("type") ? o.attribute("type").value() : "TNT";
        read_pose(t);
        level.tnts.push_back(t);
      } else if (name == "Platform") {
        Platform p;
        p.type = o.attribute("type") ? o.attribute("type").value() : "Platform";
        read_pose(p);
        p.scale_x = number(o, "scaleX", 1);
        p.scale_y = number(o, "scaleY", 1);
        level.platforms.push_back(p);
      } else {
        fail(o, fmt::format("unknown element <{}> in <GameObjects>", name));
      }
    }
  }

  std::string text(const pugi::xml_node node, const char* attr) {
    const pugi::xml_attribute a = node.attribute(attr);
    if (!a) fail(node, fmt::format("<{}> has no {} attribute", node.name(), attr));
    return a.value();
  }

  double number(const pugi::xml_node node, const char* attr, std::optional<double> fallback = std::nullopt) {
    const pugi::xml_attribute a = node.attribute(attr);
    if (!a) {
      if (fallback) return *fallback;
      fail(node, fmt::format("<{}> has no {} attribute", node.name(), attr));
    }
    const std::string_view v = a.value();
    double out = 0;
    const char* end = v.data() + v.size();
    const char* start = v.data();
    if (start != end && *start == '+') ++start;
    const auto [ptr, ec] = std::from_chars(start, end, out);
    if (ec == std::errc::result_out_of_range && ptr == end) {
      fail(node,
           fmt::format("<{}> attribute {}=\"{}\" is out of range (beyond a double)", node.name(), attr, v));
    }
    if (v.empty() || ec != std::errc() || ptr != end || !std::isfinite(out)) {
      fail(node, fmt::format("<{}> attribute {}=\"{}\" is not a number", node.name(), attr, v));
    }
    return out;
  }

  // A whole number in int's range (converting any other double to int is undefined behaviour).
  int integer(const pugi::xml_node node, const char* attr, int fallback) {
    if (!node.attribute(attr)) return fallback;
    const double v = number(node, attr);
    if (v != std::floor(v) || v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
      fail(node, fmt::format("<{}> attribute {}=\"{}\" is not a whole number from {} to {}", node.name(),
                             attr, node.attribute(attr).value(), std::numeric_limits<int>::min(),
                             std::numeric_limits<int>::max()));
    }
    return static_cast<int>(v);
  }

  [[noreturn]] void fail(const pugi::xml_node node, const std::string& cause) {
    fail(node.offset_debug(), cause);
  }
  [[noreturn]] void fail(ptrdiff_t offset, const std::string& cause) {
    throw InputError(fmt::format("{}:{}: {}", source_, line_of(text_, offset), cause));
  }

  std::string text_;
  std::string source_;
  pugi::xml_document doc_;
};

}  // namespace

bool is_block_type(std::string_view type) {
  return contains(kBlockTypes, type);
}
bool is_pig_type(std::string_view type) {
  return contains(kPigTypes, type);
}
bool is_bird_type(std::string_view type) {
  return contains(kBirdTypes, type);
}

std::string_view material_name(Material material) {
  switch (material) {
    case Material::kWood: return "wood";
    case Material::kStone: return "stone";
    case Material::kIce: return "ice";
  }
  return "wood";
}

bool parse_material(std::string_view name, Material& out) {
  if (name == "wood") {
    out = Material::kWood;
  } else if (name == "stone") {
    out = Material::kStone;
  } else if (name == "ice") {
    out = Material::kIce;
  } else {
    return false;
  }
  return true;
}

Level parse_level_xml(std::string_view bytes, const std::string& source) {
  return Reader(to_utf8(bytes, source), source).read();
}

Level read_level_file(const std::filesystem::path& path) {
  return parse_level_xml(read_file(path), path.string());
}

std::string format_decimal(double value) {
  if (value == 0) return "0";
  // Shortest round-trip digits, then expanded to plain notation.
  char buf[64];
  const auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific);
  PCGLAB_CHECK(ec == std::errc()) << "cannot format " << value;
  const std::string_view sci(buf, static_cast<size_t>(ptr - buf));
  const size_t e = sci.find('e');
  const bool negative = sci[0] == '-';
  std::string digits;
  for (char c : sci.substr(negative ? 1 : 0, e - (negative ? 1 : 0))) {
    if (c != '.') digits += c;
  }
  const int exponent = std::atoi(std::string(sci.substr(e + 1)).c_str());
  const int point = exponent + 1;  // digits before the decimal point
  std::string out;
  if (point <= 0) {
    out = "0." + std::string(static_cast<size_t>(-point), '0') + digits;
  } else if (point >= static_cast<int>(digits.size())) {
    out = digits + std::string(static_cast<size_t>(point) - digits.size(), '0');
  } else {
    out = digits.substr(0, static_cast<size_t>(point)) + "." + digits.substr(static_cast<size_t>(point));
  }
  return negative ? "-" + out : out;
}

std::string write_level_xml(const Level& level) {
  const auto f = [](double v) { return format_decimal(v); };
  std::string xml = "<?xml version=\"1.0\" encoding=\"utf-16\"?>\n";
  xml += fmt::format("<Level width=\"{}\">\n", level.width);
  if (level.camera) {
    xml += fmt::format("  <Camera x=\"{}\" y=\"{}\" minWidth=\"{}\" maxWidth=\"{}\" />\n", f(level.camera->x),
                       f(level.camera->y), f(level.camera->min_width), f(level.camera->max_width));
  }
  xml += "  <Birds>\n";
  for (const Bird& b : level.birds) xml += fmt::format("    <Bird type=\"{}\" />\n", b.type);
  xml += "  </Birds>\n";
  if (level.slingshot)
    xml += fmt::format("  <Slingshot x=\"{}\" y=\"{}\" />\n", f(level.slingshot->x), f(level.slingshot->y));
  xml += "  <GameObjects>\n";
  for (const Block& b : level.blocks) {
    xml += fmt::format("    <Block type=\"{}\" material=\"{}\" x=\"{}\" y=\"{}\" rotation=\"{}\" />\n",
                       b.type, material_name(b.material), f(b.x), f(b.y), f(b.rotation));
  }
  for (const Pig& p : level.pigs) {
    xml += fmt::format("    <Pig type=\"{}\" material=\"\" x=\"{}\" y=\"{}\" rotation=\"{}\" />\n", p.type,
                       f(p.x), f(p.y), f(p.rotation));
  }
  for (const Tnt& t : level.tnts) {
    xml += fmt::format("    <TNT type=\"{}\" x=\"{}\" y=\"{}\" rotation=\"{}\" />\n", t.type, f(t.x), f(t.y),
                       f(t.rotation));
  }
  for (const Platform& p : level.platforms) {
    xml += fmt::format(
        "    <Platform type=\"{}\" x=\"{}\" y=\"{}\" rotation=\"{}\" scaleX=\"{}\" scaleY=\"{}\" />\n",
        p.type, f(p.x), f(p.y), f(p.rotation), f(p.scale_x), f(p.scale_y));
  }
  xml += "  </GameObjects>\n</Level>";
  return xml;
}

}  // namespace pcglab::birds
