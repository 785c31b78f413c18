#include "textgame/generation.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <mutex>

#include "core/check.h"
#include "core/error_kind.h"
#include "core/files.h"
#include "llm/template.h"
#include "sandbox/worker_pool.h"

namespace pcglab::textgame {

// The prompt files, embedded at build time (src/textgame/module.cmake).
extern const unsigned char kTextgameGenerationPrompt[];
extern const unsigned long kTextgameGenerationPrompt_size;
extern const unsigned char kTextgameReflectionPrompt[];
extern const unsigned long kTextgameReflectionPrompt_size;

namespace {
namespace fs = std::filesystem;

const std::vector<std::string> kGenerationPlaceholders = {"reference_game", "task_specification"};
const std::vector<std::string> kReflectionPlaceholders = {"code", "error"};

std::string embedded(const unsigned char* bytes, unsigned long size) {
  return std::string(reinterpret_cast<const char*>(bytes), size);
}

int64_t code_points(std::string_view text) {
  return std::count_if(text.begin(), text.end(),
                       [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
}

std::string version_file(const std::string& name, int version) {
  return fmt::format("{}_generation_v{}.py", name, version);
}

std::string final_file(const std::string& name, int version) {
  return fmt::format("{}_generation_v{}_final.py", name, version);
}

llm::ChatRequest request_of(const GenerationSettings& s, std::string prompt) {
  llm::ChatRequest request;
  request.model = s.model;
  request.max_tokens = s.max_tokens;
  if (!request.max_tokens && s.official_budget) request.max_tokens = official_max_tokens(prompt);
  request.messages = {{"user", std::move(prompt)}};
  request.temperature = s.temperature;
  request.top_p = s.top_p;
  request.seed = s.seed;
  return request;
}

// One call: the reply's text; the requests it sent are added to `requests`.
std::string complete(llm::Completer& completer, const GenerationSettings& s, const std::string& prompt,
                     const std::string& item, int trial, int call, int64_t& requests,
                     const std::string& what) {
  llm::CallContext context;
  context.trial = trial;
  context.item = item;
  context.call = call;
  // Every request that reached the server (retries and failed ones included) may be billed.
  context.on_attempt = [&requests](bool sent) { requests += sent; };
  const Result<llm::ChatResponse> reply = completer.complete(request_of(s, prompt), context);
  if (!reply.ok()) throw ItemFailure(ErrorKind::kLlm, fmt::format("{}: {}", what, reply.error().message));
  return reply.value().content;
}

bool is_valid(const ValidityResult& v) {
  return v.runnable && v.error.empty();
}

}  // namespace

std::string longest_code_block(std::string_view reply) {
  std::string_view best;
  size_t start = 0;
  int piece = 0;
  while (true) {
    const size_t fence = reply.find("```", start);
    const std::string_view chunk =
        reply.substr(start, fence == std::string_view::npos ? std::string_view::npos : fence - start);
    if (piece % 2 == 1) {
      std::string_view code = chunk;
      if (code.substr(0, 7) == "python\n") code.remove_prefix(7);
      if (code.size() > best.size()) best = code;
    }
    if (fence == std::string_view::npos) break;
    start = fence + 3;
    ++piece;
  }
  return std::string(best);
}

GenerationPrompts GenerationPrompts::builtin() {
  GenerationPrompts p;
  p.generation_ = embedded(kTextgameGenerationPrompt, kTextgameGenerationPrompt_size);
  p.reflection_ = embedded(kTextgameReflectionPrompt, kTextgameReflectionPrompt_size);
  p.origin_ = "built-in";
  llm::require_placeholders(p.generation_, kGenerationPlaceholders, "generation.txt (built-in)");
  llm::require_placeholders(p.reflection_, kReflectionPlaceholders, "reflection.txt (built-in)");
  return p;
}

GenerationPrompts GenerationPrompts::load(const fs::path& dir) {
  if (!fs::is_directory(dir))
    throw SetupError(fmt::format("--prompts {}: not a folder (it needs {})", dir.string(),
                                 fmt::join(file_names(), " and ")));
  auto read = [&](const std::string& name, const std::vector<std::string>& placeholders) {
    const fs::path path = dir / name;
    if (!fs::is_regular_file(path))
      throw SetupError(fmt::format("--prompts {}: missing {} (the folder needs {})", dir.string(), name,
                                   fmt::join(file_names(), " and ")));
    std::string text = as_setup_input([&] { return read_file(path); });
    llm::require_placeholders(text, placeholders, path.string());
    return text;
  };
  GenerationPrompts p;
  p.generation_ = read("generation.txt", kGenerationPlaceholders);
  p.reflection_ = read("reflection.txt", kReflectionPlaceholders);
  p.origin_ = dir.string();
  return p;
}

const std::vector<std::string>& GenerationPrompts::file_names() {
  static const std::vector<std::string> names = {"generation.txt", "reflection.txt"};
  return names;
}

std::string GenerationPrompts::generation(std::string_view task_specification,
                                          std::string_view reference_game) const {
  return llm::render_template(generation_,
                              {{"reference_game", std::string(reference_game)},
                               {"task_specification", std::string(task_specification)}},
                              "generation.txt");
}

std::string GenerationPrompts::reflection(std::string_view code, std::string_view error) const {
  return llm::render_template(reflection_, {{"code", std::string(code)}, {"error", std::string(error)}},
                              "reflection.txt");
}

const char* stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::kValid: return "valid";
    case StopReason::kUnchanged: return "unchanged";
    case StopReason::kShrunk: return "shrunk";
    case StopReason::kReflections: return "reflections";
  }
  return "?";
}

std::optional<StopReason> compare_revision(std::string_view previous, std::string_view revised) {
  if (revised == previous) return StopReason::kUnchanged;
  const int64_t before = code_points(previous);
  if (before > 0 && 2 * code_points(revised) < before) return StopReason::kShrunk;
  return std::nullopt;
}

std::vector<fs::path> generation_outputs(const fs::path& out, const std::string& name, int reflections) {
  std::vector<fs::path> files = {out / "generated_games" / (name + "_prompt_out.txt"),
                                 out / "generated_games" / (name + "_generation.txt"),
                                 out / "generated_games" / (name + "_generation.py")};
  if (reflections == 0) return files;
  files.push_back(out / "revised_games" / (name + "_generation_reflection.json"));
  for (int v = 0; v <= reflections; ++v) {
    files.push_back(out / "revised_games" / version_file(name, v));
    files.push_back(out / "final_games" / final_file(name, v));
  }
  return files;
}

OrderedJson validity_result_json(const ValidityResult& v) {
  OrderedJson checks = OrderedJson::object();
  for (const char* name :
       {"TextGame", "getTaskDescription", "generatePossibleActions", "step", "calculateScore"}) {
    const auto it = v.checks.find(name);
    checks[name] = it != v.checks.end() && it->second;
  }
  return OrderedJson{{"game", v.game},
                     {"checks", checks},
                     {"runnable", v.runnable},
                     {"winnable", v.winnable},
                     {"initial_actions", v.initial_actions},
                     {"error", v.error},
                     {"sequences", v.sequences},
                     {"seconds", v.seconds}};
}

OrderedJson generation_json(const GenerationResult& r) {
  OrderedJson versions = OrderedJson::array();
  for (const GameVersion& v : r.versions) {
    OrderedJson j{{"version", v.version}, {"file", v.file}, {"error", v.error}};
    j["validity"] = v.validity ? validity_result_json(*v.validity) : OrderedJson();
    j["reflection_prompt"] = v.prompt;
    j["reflection_response"] = v.response;
    versions.push_back(std::move(j));
  }
  return OrderedJson{{"name", r.name},
                     {"stop", stop_reason_name(r.stop)},
                     {"valid", r.valid},
                     {"final", r.final_file},
                     {"reflections", r.versions.empty() ? 0 : r.versions.size() - 1},
                     {"versions", versions}};
}

void generate_game(llm::Completer& completer, const ValidityCheck& validity, const GenerationPrompts& prompts,
                   const GenerationSettings& settings, const GenerationJob& job, const fs::path& out,
                   const std::string& item, GenerationResult& result) {
  result = GenerationResult{};
  result.name = job.name;
  const fs::path generated = out / "generated_games", revised = out / "revised_games",
                 finals = out / "final_games";
  fs::create_directories(generated);

  // The one-shot generation.
  const std::string prompt = prompts.generation(job.spec, job.reference);
  write_file_atomic(generated / (job.name + "_prompt_out.txt"), prompt);
  const std::string reply =
      complete(completer, settings, prompt, item, job.trial, 0, result.requests, "generation");
  write_file_atomic(generated / (job.name + "_generation.txt"), reply);
  std::string code = longest_code_block(reply);
  write_file_atomic(generated / (job.name + "_generation.py"), code);
  if (code.empty())
    throw ItemFailure(ErrorKind::kNoOutput,
                      "generation: the reply has no fenced code block (```python … ```)");
  if (settings.reflections == 0) return;

  // v0 = the generation, then up to `reflections` revisions, each checked before the next.
  fs::create_directories(revised);
  fs::create_directories(finals);
  auto check = [&](GameVersion& v) {
    v.validity = validity(v.file, code);
    v.error = v.validity->runnable ? v.validity->error
                                   : (v.validity->error.empty() ? "not runnable" : v.validity->error);
    if (is_valid(*v.validity)) v.error.clear();
  };
  GameVersion v0;
  v0.file = version_file(job.name, 0);
  write_file_atomic(revised / v0.file, code);
  check(v0);
  result.versions.push_back(std::move(v0));
  std::optional<StopReason> stop;
  if (result.versions.back().error.empty()) stop = StopReason::kValid;
  for (int k = 1; k <= settings.reflections && !stop; ++k) {
    GameVersion v;
    v.version = k;
    v.file = version_file(job.name, k);
    v.prompt = prompts.reflection(code, result.versions.back().error);
    v.response = complete(completer, settings, v.prompt, item, job.trial, k, result.requests,
                          fmt::format("reflection {}", k));
    std::string revised_code = longest_code_block(v.response);
    write_file_atomic(revised / v.file, revised_code);
    stop = compare_revision(code, revised_code);
    code = std::move(revised_code);
    if (stop == StopReason::kUnchanged) {
      v.error = kStopUnchanged;
    } else if (stop == StopReason::kShrunk) {
      v.error = kStopShrunk;
    } else {
      check(v);
      if (v.error.empty()) stop = StopReason::kValid;
    }
    result.versions.push_back(std::move(v));
  }
  result.stop = stop.value_or(StopReason::kReflections);
  result.valid = result.versions.back().validity && result.versions.back().error.empty();
  result.final_file = final_file(job.name, result.versions.back().version);
  write_file_atomic(finals / result.final_file, code);
  write_file_atomic(revised / (job.name + "_generation_reflection.json"),
                    dump_json(generation_json(result), 2) + "\n");
}

ValidityCheck sandboxed_validity(const ValidityOptions& options, sandbox::WorkerConfig base) {
  sandbox::PoolConfig pool_config;
  pool_config.worker = validity_worker_config(options, std::move(base));
  struct Lazy {
    std::mutex mutex;
    std::unique_ptr<sandbox::WorkerPool> pool;
  };
  auto lazy = std::make_shared<Lazy>();
  return [lazy, pool_config, options](const std::string& filename, const std::string& source) {
    sandbox::WorkerPool* pool = nullptr;
    {
      std::lock_guard lock(lazy->mutex);
      if (!lazy->pool) lazy->pool = std::make_unique<sandbox::WorkerPool>(pool_config);
      pool = lazy->pool.get();
    }
    return check_validity(*pool, filename, source, options);
  };
}

int64_t estimated_tokens(std::string_view text) {
  return static_cast<int64_t>((text.size() + 2) / 3);
}

int official_max_tokens(std::string_view prompt) {
  constexpr int64_t kContext = 32000, kProgram = 16000;  // the official scripts' limits
  return static_cast<int>(std::max<int64_t>(1, std::min(kContext - estimated_tokens(prompt), kProgram)));
}

}  // namespace pcglab::textgame
