// `pcglab poker serve`: an IGE session behind a local web page (docs/poker.md, "Sessions").
//
// cpp-httplib serves:
//   GET  /              the page (src/poker/web/session.html, embedded at build time)
//   GET  /api/session   the session as the page reads it (poker/interact.h: session_view)
//   POST /api/turn      {"text": "..."}: one message of the user (Interaction::say); answers
//                       {"ok": true, "session": {...}} or, when the model could not be reached,
//                       502 {"ok": false, "error": "..."} with the session unchanged
// Requests are checked before anything runs: a body over kMaxBody is 413, a body that is not a
// JSON object with a string "text" (non-empty, at most kMaxText bytes) is 400, a POST that is not
// application/json is 415 (a cross-site form cannot send it), and, unless remote access is allowed,
// a Host header that does not name this machine is 403 (DNS rebinding). Every error is
// {"ok": false, "error": "..."}; the server keeps running.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "poker/interact.h"

namespace pcglab::poker {

class SessionServer {
 public:
  static constexpr size_t kMaxBody = size_t{1} << 20;  // 1 MiB
  static constexpr size_t kMaxText = 64 * 1024;        // one message of the user

  SessionServer(Interaction& interaction, bool allow_remote);
  ~SessionServer();
  SessionServer(const SessionServer&) = delete;
  SessionServer& operator=(const SessionServer&) = delete;

  // Binds host:port (port 0: a free one) and returns the port; SetupError naming the address when
  // it cannot be bound.
  int bind(const std::string& host, int port);
  // Serves until stop() (from any thread; a stop() that comes first waits for listen() to start).
  void listen();
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// True for a host name or address that is this machine: localhost, 127.0.0.0/8, ::1.
bool is_loopback_host(const std::string& host);

// The page's HTML (embedded).
std::string_view session_page();

}  // namespace pcglab::poker
