// core/registry.h: registration, lookup, duplicates, and the catalogue every registry joins.
#include "core/registry.h"

#include <gtest/gtest.h>

#include <string>

#include "core/check.h"

namespace pcglab {
namespace {

struct Colour {
  static constexpr const char* kRegistryKind = "test-colours";
  int rgb = 0;
};

PCGLAB_REGISTER(Colour, "red", "the colour of blood", Colour{0xff0000});
PCGLAB_REGISTER(Colour, "blue", "the colour of the sky", Colour{0x0000ff});

TEST(Registry, FindsWhatFilesRegisteredSortedByName) {
  const auto& r = registry<Colour>();
  ASSERT_NE(r.find("red"), nullptr);
  EXPECT_EQ(r.find("red")->value.rgb, 0xff0000);
  EXPECT_EQ(r.find("red")->description, "the colour of blood");
  EXPECT_EQ(r.find("green"), nullptr);
  const auto entries = r.entries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0]->name, "blue");
  EXPECT_EQ(entries[1]->name, "red");
  EXPECT_EQ(r.names(), "blue, red");
}

TEST(Registry, ANameRegisteredTwiceIsAProgrammingError) {
  EXPECT_THROW(registry<Colour>().add({"red", "again", Colour{1}}), CheckError);
  EXPECT_EQ(registry<Colour>().find("red")->value.rgb, 0xff0000);
}

TEST(Registry, EveryRegistryIsInTheCatalogue) {
  bool found = false;
  for (const auto& listing : list_registries()) {
    if (listing.kind != "test-colours") continue;
    found = true;
    ASSERT_EQ(listing.entries.size(), 2u);
    EXPECT_EQ(listing.entries[0], (std::pair<std::string, std::string>{"blue", "the colour of the sky"}));
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace pcglab
