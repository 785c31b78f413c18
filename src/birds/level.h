// A Science Birds level: what the level XML holds, and what the evaluator simulates and renders.
// Read and written by level_xml.h; produced from drop programs by the text-to-XML converter.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pcglab::birds {

// Materials of blocks: wood, stone, ice (Science Birds names, lower case in XML).
enum class Material { kWood, kStone, kIce };

struct Camera {
  double x = 2;
  double y = 0;
  double min_width = 17;
  double max_width = 22;
};

// A block: type is a Science Birds block name ("RectSmall", "SquareTiny", "SquareHole", ...).
// Positions are the centre in world units; rotation in degrees.
struct Block {
  std::string type;
  Material material = Material::kWood;
  double x = 0;
  double y = 0;
  double rotation = 0;
};

// Pigs ("BasicSmall", "BasicMedium", "BasicBig", ...).
struct Pig {
  std::string type;
  double x = 0;
  double y = 0;
  double rotation = 0;
};

struct Tnt {
  std::string type = "TNT";
  double x = 0;
  double y = 0;
  double rotation = 0;
};

// Static platforms; scale stretches the unit platform.
struct Platform {
  std::string type = "Platform";
  double x = 0;
  double y = 0;
  double rotation = 0;
  double scale_x = 1;
  double scale_y = 1;
};

struct Bird {
  std::string type = "BirdRed";
};

struct Slingshot {
  double x = -9;
  double y = -2.5;
};

struct Level {
  int width = 3;  // number of landscape pieces
  std::optional<Camera> camera;
  std::vector<Bird> birds;
  std::optional<Slingshot> slingshot;
  std::vector<Block> blocks;
  std::vector<Pig> pigs;
  std::vector<Tnt> tnts;
  std::vector<Platform> platforms;
};

}  // namespace pcglab::birds
