// `pcglab poker session` (a session in the terminal) and `pcglab poker serve` (the same behind a
// local web page): an IGE session with a model, saved after every turn and resumable
// (docs/poker.md, "Sessions"; the turn loop is poker/interact.h, the server poker/session_server.h).
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "command.h"
#include "core/log.h"
#include "llm/completer_stack.h"
#include "llm_options.h"
#include "poker/interact.h"
#include "poker/session_server.h"

namespace pcglab::cli {
namespace {

struct SessionCliOptions {
  LlmOptions llm;
  SandboxOptions sandbox;
  std::string file = "poker-session.json";
  int64_t seed = 1;
  double game_timeout = 10;
  int memory = 1024;
  // serve only
  std::string host = "127.0.0.1";
  int port = 8765;
  bool allow_remote = false;
};

void add_session_options(CLI::App& cmd, SessionCliOptions& o) {
  LlmOptionSpec spec;
  spec.cache = true;
  spec.seed = false;  // --seed is the rounds' seed
  add_llm_options(cmd, o.llm, spec);
  cmd.add_option("--session", o.file, "The session file: resumed when it exists, written after every turn")
      ->capture_default_str();
  cmd.add_option("--seed", o.seed, "Seed of the first round (each round after it uses the next seed)")
      ->check(any_number<int64_t>())
      ->capture_default_str();
  cmd.add_option("--game-timeout", o.game_timeout, "Wall-clock seconds a round may take in the sandbox")
      ->check(number_in(0.01, 86400.0))
      ->capture_default_str();
  cmd.add_option("--memory", o.memory, "Memory limit of the sandbox worker, MB")
      ->check(number_in(64, 1 << 20))
      ->capture_default_str();
  add_sandbox_options(cmd, o.sandbox, "the game the model writes");
}

struct Setup {
  llm::CompleterStack stack;
  std::unique_ptr<poker::Interaction> interaction;
  bool resumed = false;
};

Setup open(const SessionCliOptions& o) {
  Setup s;
  llm::CompleterStackOptions stack;
  stack.client = o.llm.checked_client_config();
  stack.cache = o.llm.cache_file();
  s.stack = llm::make_completer_stack(stack);
  s.stack.client->on_retry([](const llm::RetryNotice& retry) { log_warn("{}", retry.describe()); });
  poker::InteractOptions io;
  io.model = o.llm.model;
  io.temperature = o.llm.temperature;
  io.top_p = o.llm.top_p;
  io.max_tokens = o.llm.max_tokens;
  io.run.worker.limits.call_timeout_s = o.game_timeout;
  io.run.worker.limits.memory_mb = o.memory;
  io.run.worker.isolation = o.sandbox.isolation(io.run.worker);
  io.file = o.file;
  Json settings = Json::object();
  settings["model"] = o.llm.model;
  settings["seed"] = o.seed;
  s.resumed = std::filesystem::exists(o.file);
  poker::Session session = as_setup_input([&] { return poker::open_session(o.file, settings); });
  s.interaction = std::make_unique<poker::Interaction>(std::move(session), s.stack.completer(), io);
  s.interaction->save();  // a bad path fails now, before the first turn
  return s;
}

std::string indent(const std::string& text, const std::string& by = "  ") {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    out += line.empty() ? "\n" : by + line + "\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

void print_turn(const poker::Session& session, const poker::TurnOutcome& outcome) {
  const poker::SessionTurn& turn = session.turns.back();
  if (!outcome.applied) {
    std::cout << "assistant (not applied):\n" << indent(turn.text) << "errors:\n";
    for (const std::string& e : turn.errors) std::cout << "  " << e << "\n";
    std::cout << "(the errors go back to the model with your next message)\n";
    return;
  }
  std::cout << "assistant: " << turn.blocks->utter << "\n";
  std::cout << "script:\n" << indent(poker::script_summary(turn.script));
  if (outcome.changes.empty()) {
    std::cout << "code: unchanged\n";
  } else {
    std::cout << "code:";
    for (const std::string& c : outcome.changes) std::cout << " " << c << ";";
    std::cout << "\n";
  }
  if (outcome.round_played) {
    const std::vector<std::string> digest = poker::round_log_digest(poker::round_log(turn.round));
    std::cout << fmt::format("round log ({} steps; /log prints the whole log):\n", digest.size());
    for (const std::string& line : digest) std::cout << "  " << line << "\n";
  }
  std::cout << poker::round_summary(turn.round);
  if (outcome.round_played && !outcome.round_ok)
    std::cout << "(the error goes back to the model with your next message)\n";
}

constexpr const char* kHelp =
    "commands: /script (the whole script), /code (the game file), /round (the last round's state), "
    "/log (the last round's whole log), /save (write the session file now), /help, /quit (or end of input)\n";

// A command line; false when the session should end.
bool run_command(const std::string& line, poker::Interaction& interaction, const std::string& file) {
  const poker::Session session = interaction.session();
  if (line == "/quit" || line == "/exit") return false;
  if (line == "/script") {
    std::cout << poker::script_as_edits(session.script());
  } else if (line == "/code") {
    std::cout << session.game_file();
  } else if (line == "/round") {
    const OrderedJson view = poker::session_view(session);
    std::cout << (view["round"].is_null() ? std::string("no round played yet") : dump_json(view["round"], 1))
              << "\n";
  } else if (line == "/log") {
    const OrderedJson view = poker::session_view(session);
    const std::string text = view["round_log"].get<std::string>();
    std::cout << (text.empty() ? std::string("no round played yet\n") : text);
  } else if (line == "/save") {
    interaction.save();
    std::cout << "saved to " << file << "\n";
  } else {
    std::cout << kHelp;
  }
  return true;
}

int run_session(const SessionCliOptions& o) {
  Setup s = open(o);
  poker::Interaction& interaction = *s.interaction;
  const poker::Session start = interaction.session();
  std::cout << fmt::format("pcglab poker session with {}: {} {}", o.llm.model,
                           s.resumed ? "resumed" : "new session in", o.file);
  if (s.resumed) std::cout << fmt::format(" ({} turns)", start.turns.size());
  std::cout << fmt::format("; next round seed {}\n", poker::next_round_seed(start)) << kHelp;
  if (s.resumed) std::cout << "script:\n" << indent(poker::script_summary(start.script()));
  std::string line;
  while (true) {
    std::cout << "you> " << std::flush;
    if (!std::getline(std::cin, line)) {
      std::cout << "\n";
      break;
    }
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (line.starts_with("/")) {
      if (!run_command(line, interaction, o.file)) break;
      continue;
    }
    const poker::TurnOutcome outcome = interaction.say(line);
    if (!outcome.ok) {
      std::cout << "error: the model could not be reached: " << outcome.error
                << "\nnothing was recorded; send your message again\n";
      continue;
    }
    print_turn(interaction.session(), outcome);
  }
  interaction.save();
  std::cout << "session saved to " << o.file << "\n";
  return kExitOk;
}

Action setup_session(CLI::App& cmd, const GlobalOptions&) {
  auto o = std::make_shared<SessionCliOptions>();
  add_session_options(cmd, *o);
  cmd.footer(
      "Type what the game should be; the model answers with <script>, <code> and <utter>, pcglab applies "
      "the turn and plays a round in the sandbox. Commands: /script, /code, /round, /log, /save, /help, "
      "/quit. "
      "The session file is written after every turn; run the same command again to resume it.");
  return [o] { return run_session(*o); };
}

int g_stop_pipe[2] = {-1, -1};

int run_serve(const SessionCliOptions& o) {
  if (!o.allow_remote && !poker::is_loopback_host(o.host)) {
    throw SetupError(fmt::format(
        "--host {}: the session server runs the model's code on this machine and has no login, so it "
        "listens on this machine only (127.0.0.1, ::1, localhost); add --allow-remote to serve others",
        o.host));
  }
  Setup s = open(o);
  // SIGINT and SIGTERM stop the server: the handler (whichever thread takes the signal) writes a
  // byte to a pipe, and a thread of its own reads it and stops the server.
  poker::SessionServer server(*s.interaction, o.allow_remote);
  const int port = server.bind(o.host, o.port);
  if (::pipe(g_stop_pipe) != 0) throw SetupError("cannot create a pipe for the stop signals");
  struct sigaction action {};
  action.sa_handler = [](int) {
    const char byte = 1;
    [[maybe_unused]] const ssize_t n = ::write(g_stop_pipe[1], &byte, 1);
  };
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
  std::thread([&server] {
    char byte = 0;
    while (::read(g_stop_pipe[0], &byte, 1) < 0 && errno == EINTR) {
    }
    server.stop();
  }).detach();
  const std::string shown = o.host.find(':') != std::string::npos ? "[" + o.host + "]" : o.host;
  std::cout << fmt::format("serving the session at http://{}:{}/ (file {}); Ctrl-C stops\n", shown, port,
                           o.file)
            << std::flush;
  server.listen();
  s.interaction->save();
  std::cout << "session saved to " << o.file << "\n";
  return kExitOk;
}

Action setup_serve(CLI::App& cmd, const GlobalOptions&) {
  auto o = std::make_shared<SessionCliOptions>();
  add_session_options(cmd, *o);
  cmd.add_option("--host", o->host, "Address to listen on (this machine only unless --allow-remote)")
      ->capture_default_str();
  cmd.add_option("--port", o->port, "Port to listen on (0: a free one, printed)")
      ->check(number_in(0, 65535))
      ->capture_default_str();
  cmd.add_flag("--allow-remote", o->allow_remote,
               "Listen on an address other machines reach, and answer requests for any Host (no login!)");
  cmd.footer(
      "Open the printed address in a browser: the conversation, the script, the code, the last round and its "
      "log. "
      "API: GET /api/session, POST /api/turn {\"text\": ...}. The session file is written after every turn.");
  return [o] { return run_serve(*o); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("poker", "session",
                        "Build a poker game with a model in the terminal (IGE): each turn applied and played",
                        setup_session);
PCGLAB_REGISTER_COMMAND("poker", "serve",
                        "Build a poker game with a model on a local web page (IGE session, JSON API)",
                        setup_serve);

}  // namespace pcglab::cli
