#include "birds/stability.h"

#include <box2d/box2d.h>

#include <cmath>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "birds/block_catalog.h"
#include "core/check.h"

namespace pcglab::birds {
namespace {

constexpr double kDegToRad = M_PI / 180.0;
constexpr float kGroundFriction = 0.4f;  // no material on the ground: Box2D's (and Unity's) default

// One simulated object with what the damage model and the measurement need.
struct Tracked {
  b2Body* body = nullptr;
  std::string kind;
  int index = 0;
  std::string type;
  double life = 0;
  bool has_life = false;
  double start_x = 0, start_y = 0;
  double last_x = 0, last_y = 0, last_angle = 0;
  bool dead = false;  // life reached 0: collider off
  double death_time = -1;
  double removal_time = -1;  // when the body is removed
  bool removed = false;
  bool counted = true;  // false when removed before start positions were recorded
};

// OnCollisionEnter2D: each object in a new contact loses |relative velocity| of life.
class DamageListener : public b2ContactListener {
 public:
  void BeginContact(b2Contact* contact) override {
    b2Body* a = contact->GetFixtureA()->GetBody();
    b2Body* b = contact->GetFixtureB()->GetBody();
    const double speed = (a->GetLinearVelocity() - b->GetLinearVelocity()).Length();
    hurt(a, speed);
    hurt(b, speed);
  }

 private:
  static void hurt(b2Body* body, double speed) {
    auto* t = reinterpret_cast<Tracked*>(body->GetUserData().pointer);
    if (t != nullptr && t->has_life && !t->dead) t->life -= speed;
  }
};

struct BodySettings {        // Rigidbody2D
  double linear_drag = 1.0;  // blocks: 1; pigs and TNT: 0
  double angular_drag = 0.05;
  double gravity_scale = 0.5;
};

b2Body* make_body(b2World& world, double x, double y, double rotation_deg, bool dynamic,
                  const BodySettings& settings = {}) {
  b2BodyDef def;
  def.type = dynamic ? b2_dynamicBody : b2_staticBody;
  def.position.Set(static_cast<float>(x), static_cast<float>(y));
  // Unity keeps a rotation as a quaternion, so only the angle modulo 360° matters (fmod is exact, and
  // leaves |rotation| < 360 as it is); this also keeps huge values finite for Box2D.
  def.angle = static_cast<float>(std::fmod(rotation_deg, 360.0) * kDegToRad);
  def.linearDamping = static_cast<float>(settings.linear_drag);
  def.angularDamping = static_cast<float>(settings.angular_drag);
  def.gravityScale = static_cast<float>(settings.gravity_scale);
  def.bullet = false;  // discrete collision detection
  return world.CreateBody(&def);
}

void add_box(b2Body* body, double w, double h, double friction) {
  b2PolygonShape box;
  box.SetAsBox(static_cast<float>(w / 2), static_cast<float>(h / 2));
  b2FixtureDef fd;
  fd.shape = &box;
  fd.density = 1.0f;  // auto mass: mass = area
  fd.friction = static_cast<float>(friction);
  fd.restitution = 0.0f;
  body->CreateFixture(&fd);
}

// A PolygonCollider2D: each outline as convex fixtures of at most 8 vertices (Box2D's limit), then
// the mass, centroid and inertia of the outlines minus their holes set exactly (Unity's own
// decomposition is not reproduced; the mass properties do not depend on it). With `mass` > 0 the
// Rigidbody2D's fixed mass (no auto mass): the inertia scales with it.
void add_polygon(b2Body* body, const ColliderPaths& paths, double friction, double mass = 0) {
  for (const auto& path : paths) {
    if (polygon_mass({path}).area <= 0) continue;  // a hole: left out of the fixtures
    for (const auto& piece : convex_pieces(path)) {
      std::vector<b2Vec2> v;
      for (const Point2& p : piece) v.emplace_back(static_cast<float>(p.x), static_cast<float>(p.y));
      b2PolygonShape shape;
      shape.Set(v.data(), static_cast<int32>(v.size()));
      b2FixtureDef fd;
      fd.shape = &shape;
      fd.density = 1.0f;
      fd.friction = static_cast<float>(friction);
      fd.restitution = 0.0f;
      body->CreateFixture(&fd);
    }
  }
  const PolygonMass m = polygon_mass(paths);
  const double scale = mass > 0 ? mass / m.area : 1.0;
  b2MassData data;
  data.mass = static_cast<float>(m.area * scale);
  data.center.Set(static_cast<float>(m.cx), static_cast<float>(m.cy));
  data.I = static_cast<float>((m.inertia + m.area * (m.cx * m.cx + m.cy * m.cy)) *
                              scale);  // about the body origin
  body->SetMassData(&data);
}

void set_fixed_mass(b2Body* body, double mass) {  // Rigidbody2D without auto mass
  b2MassData data;
  body->GetMassData(&data);
  const double scale = mass / data.mass;
  data.mass = static_cast<float>(mass);
  data.I = static_cast<float>(data.I * scale);
  body->SetMassData(&data);
}

// Landscape.prefab: three ground colliders 17.49 wide whose tops are at y = -3.5.
void add_ground(b2World& world) {
  constexpr double kCentreY = -4.3 - 1.4034476;
  constexpr double kHeight = 4.4068956;
  for (double x : {-13.125, 4.365, 21.855}) {
    b2Body* g = make_body(world, x, kCentreY, 0, false);
    add_box(g, 17.49, kHeight, kGroundFriction);
  }
}

void disable_collisions(b2Body* body) {
  for (b2Fixture* f = body->GetFixtureList(); f != nullptr; f = f->GetNext()) {
    b2Filter filter = f->GetFilterData();
    filter.maskBits = 0;
    f->SetFilterData(filter);
  }
}

// Box2D aborts the process on a non-finite position or a degenerate box, so values it cannot take
// are refused before (the level fails alone). Each returns why, naming the object, or "".
constexpr double kMaxCoordinate = 1e6;
std::string object_problem(const std::string& what, double x, double y, double rotation) {
  for (const auto& [name, v] : {std::pair{"x", x}, std::pair{"y", y}}) {
    if (!std::isfinite(v) || std::abs(v) > kMaxCoordinate) {
      return fmt::format("{}: {} = {} is out of range (|x|, |y| <= {})", what, name, v, kMaxCoordinate);
    }
  }
  if (!std::isfinite(rotation)) return fmt::format("{}: rotation {} is not a number", what, rotation);
  return "";
}

std::string level_problem(const Level& level) {
  for (size_t i = 0; i < level.blocks.size(); ++i) {
    const Block& b = level.blocks[i];
    const std::string what = fmt::format("block {} ({})", i, b.type);
    if (find_block_spec(b.type) == nullptr) return fmt::format("{}: unknown block type \"{}\"", what, b.type);
    if (auto p = object_problem(what, b.x, b.y, b.rotation); !p.empty()) return p;
  }
  for (size_t i = 0; i < level.pigs.size(); ++i) {
    const Pig& p = level.pigs[i];
    const std::string what = fmt::format("pig {} ({})", i, p.type);
    if (find_pig_spec(p.type) == nullptr) return fmt::format("{}: unknown pig type \"{}\"", what, p.type);
    if (auto problem = object_problem(what, p.x, p.y, p.rotation); !problem.empty()) return problem;
  }
  for (size_t i = 0; i < level.tnts.size(); ++i) {
    const Tnt& t = level.tnts[i];
    if (auto p = object_problem(fmt::format("TNT {}", i), t.x, t.y, t.rotation); !p.empty()) return p;
  }
  for (size_t i = 0; i < level.platforms.size(); ++i) {
    const Platform& p = level.platforms[i];
    const std::string what = fmt::format("platform {}", i);
    if (auto problem = object_problem(what, p.x, p.y, p.rotation); !problem.empty()) return problem;
    for (const auto& [name, v] : {std::pair{"scaleX", p.scale_x}, std::pair{"scaleY", p.scale_y}}) {
      if (!std::isfinite(v) || std::abs(v) < 1e-3 || std::abs(v) > kMaxCoordinate) {
        return fmt::format("{}: {} = {} gives no usable collider (1e-3 <= |scale| <= {})", what, name, v,
                           kMaxCoordinate);
      }
    }
  }
  return "";
}

}  // namespace

void check_simulable(const Level& level) {
  std::string problem = level_problem(level);
  if (!problem.empty()) throw ItemFailure(ErrorKind::kBadInput, problem);
}

StabilityResult evaluate_stability(const Level& level, const StabilityConfig& config) {
  const std::string problem = level_problem(level);
  PCGLAB_CHECK(problem.empty()) << "evaluate_stability on a level check_simulable refuses: " << problem;
  b2World world(b2Vec2(0.0f, -9.81f));
  world.SetContinuousPhysics(false);  // Rigidbody2D collision detection: discrete
  world.SetAllowSleeping(true);
  DamageListener listener;
  if (config.damage) world.SetContactListener(&listener);
  add_ground(world);

  std::vector<std::unique_ptr<Tracked>> tracked;
  auto track = [&](b2Body* body, const std::string& kind, int index, const std::string& type, double life) {
    auto t = std::make_unique<Tracked>();
    t->body = body;
    t->kind = kind;
    t->index = index;
    t->type = type;
    t->life = life;
    t->has_life = life > 0;
    body->GetUserData().pointer = reinterpret_cast<uintptr_t>(t.get());
    tracked.push_back(std::move(t));
  };
  for (size_t i = 0; i < level.blocks.size(); ++i) {
    const Block& b = level.blocks[i];
    const BlockSpec* spec = find_block_spec(b.type);
    PCGLAB_CHECK(spec != nullptr) << "unknown block type " << b.type;
    b2Body* body = make_body(world, b.x, b.y, b.rotation, true);
    const double f = material_friction(b.material);
    if (spec->paths != nullptr) {
      add_polygon(body, *spec->paths, f);
    } else {
      add_box(body, spec->width, spec->height, f);
    }
    track(body, "block", static_cast<int>(i), b.type, block_life(b.material));
  }
  for (size_t i = 0; i < level.pigs.size(); ++i) {
    const Pig& p = level.pigs[i];
    const PigSpec* spec = find_pig_spec(p.type);
    PCGLAB_CHECK(spec != nullptr) << "unknown pig type " << p.type;
    b2Body* body = make_body(world, p.x, p.y, p.rotation, true, {0.0, 0.05, spec->gravity_scale});
    add_polygon(body, *spec->paths, kUnityDefaultFriction, spec->mass);
    track(body, "pig", static_cast<int>(i), p.type, spec->life);
  }
  for (size_t i = 0; i < level.tnts.size(); ++i) {
    const Tnt& t = level.tnts[i];
    b2Body* body = make_body(world, t.x, t.y, t.rotation, true, {0.0, 0.05, kTntGravityScale});
    add_box(body, kTntSize, kTntSize, kUnityDefaultFriction);
    set_fixed_mass(body, kTntMass);
    track(body, "tnt", static_cast<int>(i), "TNT", kTntLife);
  }
  for (const Platform& p : level.platforms) {  // kinematic and never moved: static for the physics
    b2Body* body = make_body(world, p.x, p.y, p.rotation, false);
    add_box(body, kPlatformSize * std::abs(p.scale_x), kPlatformSize * std::abs(p.scale_y),
            kUnityDefaultFriction);
  }

  StabilityResult result;
  const int settle_steps = static_cast<int>(std::lround(config.settle_time / config.step));
  double time = 0;
  // ABGameObject.Die: velocity 0, collider off, removed 0.5 s later. A TNT first explodes
  // (ABTNT.Explode): objects whose colliders overlap a circle of radius 2 around it take damage and
  // an impulse, and die at once if their life runs out; a TNT among them explodes in turn before
  // the first one goes on (Unity's recursion, kept on an explicit stack so that a long chain of TNT
  // cannot overflow the thread's stack).
  auto finish = [&](Tracked& t) {
    disable_collisions(t.body);
    t.body->SetLinearVelocity(b2Vec2(0, 0));
  };
  auto kill = [&](Tracked& first) {
    std::vector<std::pair<Tracked*, size_t>> exploding;  // a TNT and the next object it reaches
    auto start = [&](Tracked& t) {
      t.dead = true;
      t.death_time = time;
      t.removal_time = time + config.destroy_delay;
      if (t.kind == "tnt") {
        exploding.emplace_back(&t, 0);
      } else {
        finish(t);
      }
    };
    start(first);
    b2CircleShape area;
    area.m_radius = static_cast<float>(kTntExplosionArea);
    while (!exploding.empty()) {
      auto& [tnt, next] = exploding.back();
      if (next == tracked.size()) {
        Tracked& done = *tnt;
        exploding.pop_back();
        finish(done);
        continue;
      }
      Tracked& o = *tracked[next++];
      if (&o == tnt || o.removed || o.dead) continue;
      const b2Vec2 centre = tnt->body->GetPosition();
      b2Transform at;
      at.Set(centre, 0.0f);
      bool overlaps = false;
      for (b2Fixture* f = o.body->GetFixtureList(); f != nullptr && !overlaps; f = f->GetNext()) {
        overlaps = b2TestOverlap(&area, 0, f->GetShape(), 0, at, o.body->GetTransform());
      }
      if (!overlaps) continue;
      const b2Vec2 d = o.body->GetPosition() - centre;
      const double distance = d.Length();
      if (distance > 0) {
        const double impulse = kTntExplosionPower / (distance * 2.0);
        o.body->ApplyLinearImpulseToCenter(b2Vec2(static_cast<float>(d.x / distance * impulse),
                                                  static_cast<float>(d.y / distance * impulse)),
                                           true);
      }
      if (o.has_life) {
        o.life -= distance > 0 ? kTntExplosionDamage / distance : std::numeric_limits<double>::infinity();
        if (o.life <= 0) start(o);  // may push a TNT: `tnt` and `next` are not used after this
      }
    }
  };
  auto step_world = [&]() -> bool {  // one fixed step; false when nothing can move any more
    world.Step(static_cast<float>(config.step), config.velocity_iterations, config.position_iterations);
    time += config.step;
    for (auto& t : tracked) {
      if (!t->removed && t->has_life && !t->dead && t->life <= 0) kill(*t);
    }
    bool pending = false;
    for (auto& t : tracked) {
      if (t->removed) continue;
      const b2Vec2 pos = t->body->GetPosition();
      t->last_x = pos.x;
      t->last_y = pos.y;
      t->last_angle = t->body->GetAngle();
      const bool outside = std::abs(pos.x) > config.world_half_width;
      if ((t->dead && time + 1e-9 >= t->removal_time) || outside) {
        world.DestroyBody(t->body);
        t->body = nullptr;
        t->removed = true;
        if (!t->dead) t->death_time = time;
        t->dead = true;
        continue;
      }
      if (t->dead) pending = true;
    }
    if (pending) return true;
    for (b2Body* b = world.GetBodyList(); b != nullptr; b = b->GetNext()) {
      if (b->GetType() == b2_dynamicBody && b->IsAwake() && b->IsEnabled()) return true;
    }
    return false;
  };
  for (int i = 0; i < settle_steps; ++i) step_world();
  const double start_time = time;
  for (auto& t : tracked) {
    if (t->removed) {  // destroyed while settling: the evaluator never sees it
      t->counted = false;
      continue;
    }
    const b2Vec2 pos = t->body->GetPosition();
    t->start_x = t->last_x = pos.x;
    t->start_y = t->last_y = pos.y;
    t->last_angle = t->body->GetAngle();
  }

  const int max_steps = static_cast<int>(std::ceil(config.duration / config.step - 1e-9));
  for (int step = 0; step < max_steps; ++step) {
    ++result.steps;
    if (!step_world() && config.early_stop) {
      result.stopped_early = step + 1 < max_steps;
      break;
    }
  }

  result.final_level = level;
  result.final_level.blocks.clear();
  result.final_level.pigs.clear();
  result.final_level.tnts.clear();
  int counted = 0;
  for (auto& t : tracked) {
    if (!t->counted) continue;
    ++counted;
    ObjectOutcome o{t->kind,    t->index,
                    t->type,    t->start_x,
                    t->start_y, t->last_x,
                    t->last_y,  t->last_angle / kDegToRad,
                    t->dead,    t->dead ? t->death_time - start_time : -1.0,
                    t->removed, false};
    o.moved = std::hypot(o.end_x - o.start_x, o.end_y - o.start_y) >= config.movement_threshold;
    result.moving_objects += o.moved ? 1 : 0;
    result.remaining_objects += o.removed ? 0 : 1;
    result.objects.push_back(o);
    if (t->dead) continue;
    if (t->kind == "block") {
      Block b = level.blocks[t->index];
      b.x = o.end_x, b.y = o.end_y, b.rotation = o.end_rotation;
      result.final_level.blocks.push_back(b);
    } else if (t->kind == "pig") {
      Pig p = level.pigs[t->index];
      p.x = o.end_x, p.y = o.end_y, p.rotation = o.end_rotation;
      result.final_level.pigs.push_back(p);
    } else {
      Tnt n = level.tnts[t->index];
      n.x = o.end_x, n.y = o.end_y, n.rotation = o.end_rotation;
      result.final_level.tnts.push_back(n);
    }
  }
  result.starting_objects = counted;
  // The evaluator's C# (`1.0f - ((float)moving / (float)total)`, or `eObjCount / sObjCount`) runs
  // on Unity's Mono, which evaluates float expressions in double precision and rounds when it
  // stores the float: 4 of 6 moving gives 0.3333333432674408 (single precision throughout would
  // give 0.3333333134651184). Checked on the official outputs: tests/birds/official_evaluator_test.cc.
  // An empty level (never produced by the converter) would divide by zero there: pcglab scores it 0.
  const auto total = static_cast<double>(result.starting_objects);
  if (result.starting_objects == 0) {
    result.score = 0.0f;
  } else if (config.metric == StabilityMetric::kRemaining) {
    result.score = static_cast<float>(result.remaining_objects / total);
  } else {
    result.score = static_cast<float>(1.0 - result.moving_objects / total);
  }
  return result;
}

}  // namespace pcglab::birds
