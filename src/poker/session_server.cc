#include "poker/session_server.h"

#include <arpa/inet.h>
#include <httplib.h>

#include <fmt/format.h>

#include <atomic>
#include <thread>

#include "core/check.h"
#include "core/json.h"

namespace pcglab::poker {

extern const unsigned char kPokerSessionPage[];
extern const unsigned long kPokerSessionPage_size;

namespace {

void reply_json(httplib::Response& res, int status, const OrderedJson& body) {
  res.status = status;
  res.set_content(dump_json(body), "application/json; charset=utf-8");
}

void reply_error(httplib::Response& res, int status, const std::string& message) {
  OrderedJson body = OrderedJson::object();
  body["ok"] = false;
  body["error"] = message;
  reply_json(res, status, body);
}

// "127.0.0.1:8080" -> "127.0.0.1"; "[::1]:8080" -> "::1".
std::string host_of(const std::string& header) {
  if (header.starts_with("[")) {
    const size_t end = header.find(']');
    return end == std::string::npos ? header : header.substr(1, end - 1);
  }
  const size_t colon = header.rfind(':');
  return colon == std::string::npos ? header : header.substr(0, colon);
}

}  // namespace

bool is_loopback_host(const std::string& host) {
  if (host == "localhost" || host == "::1") return true;
  in_addr addr{};
  if (inet_pton(AF_INET, host.c_str(), &addr) != 1) return false;
  return (ntohl(addr.s_addr) >> 24) == 127;
}

std::string_view session_page() {
  return {reinterpret_cast<const char*>(kPokerSessionPage), kPokerSessionPage_size};
}

struct SessionServer::Impl {
  Interaction& interaction;
  bool allow_remote;
  httplib::Server server;
  std::atomic<bool> listened{false};  // listen() has returned

  Impl(Interaction& i, bool remote) : interaction(i), allow_remote(remote) {}

  // The request's answer when it must be refused before it reaches a route; nothing when it may go on.
  bool refuse_host(const httplib::Request& req, httplib::Response& res) const {
    if (allow_remote) return false;
    const std::string host = host_of(req.get_header_value("Host"));
    if (is_loopback_host(host)) return false;
    reply_error(res, 403,
                fmt::format("Host '{}' is not this machine: the session server answers only requests for "
                            "localhost or 127.0.0.1 (pcglab poker serve --allow-remote lifts this)",
                            req.get_header_value("Host")));
    return true;
  }

  void get_page(const httplib::Request& req, httplib::Response& res) const {
    if (refuse_host(req, res)) return;
    res.set_header("Content-Security-Policy",
                   "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                   "connect-src 'self'");
    res.set_content(std::string(session_page()), "text/html; charset=utf-8");
  }

  void get_session(const httplib::Request& req, httplib::Response& res) const {
    if (refuse_host(req, res)) return;
    reply_json(res, 200, session_view(interaction.session()));
  }

  void post_turn(const httplib::Request& req, httplib::Response& res) const {
    if (refuse_host(req, res)) return;
    const std::string type = req.get_header_value("Content-Type");
    if (!type.starts_with("application/json")) {
      reply_error(res, 415, "POST /api/turn takes a JSON body (Content-Type: application/json)");
      return;
    }
    Json body;
    try {
      body = parse_json(req.body, "the request body");
    } catch (const InputError& e) {
      reply_error(res, 400, e.what());
      return;
    }
    if (!body.is_object() || !body.contains("text") || !body.at("text").is_string()) {
      reply_error(res, 400, "the request body must be a JSON object with a string field \"text\"");
      return;
    }
    const std::string text = body.at("text").get<std::string>();
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
      reply_error(res, 400, "\"text\" is empty: say something to the model");
      return;
    }
    if (text.size() > kMaxText) {
      reply_error(
          res, 413,
          fmt::format("\"text\" holds {} bytes; a message may hold at most {}", text.size(), kMaxText));
      return;
    }
    const TurnOutcome outcome = interaction.say(text);
    OrderedJson out = OrderedJson::object();
    out["ok"] = outcome.ok;
    if (!outcome.ok) {
      out["error"] = "the model could not be reached; the session is unchanged, send the message again: " +
                     outcome.error;
      reply_json(res, 502, out);
      return;
    }
    out["requests"] = outcome.requests;
    out["changes"] = outcome.changes;
    out["session"] = session_view(interaction.session());
    reply_json(res, 200, out);
  }
};

SessionServer::SessionServer(Interaction& interaction, bool allow_remote)
    : impl_(std::make_unique<Impl>(interaction, allow_remote)) {
  httplib::Server& s = impl_->server;
  s.set_payload_max_length(kMaxBody);
  s.Get("/", [this](const httplib::Request& req, httplib::Response& res) { impl_->get_page(req, res); });
  s.Get("/api/session",
        [this](const httplib::Request& req, httplib::Response& res) { impl_->get_session(req, res); });
  s.Post("/api/turn",
         [this](const httplib::Request& req, httplib::Response& res) { impl_->post_turn(req, res); });
  // Statuses cpp-httplib sets itself (404, 413 for a body over the limit, 400 for a malformed
  // request) get a message too; a route's own error already has one.
  s.set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        std::string message = fmt::format("{} {}: HTTP {}", req.method, req.path, res.status);
        if (res.status == 404) message = fmt::format("{} {}: no such page or API", req.method, req.path);
        if (res.status == 413) message = fmt::format("the request body is over {} bytes", kMaxBody);
        reply_error(res, res.status, message);
        return httplib::Server::HandlerResponse::Handled;
      }));
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string message = "internal error";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      message = e.what();
    } catch (...) {
    }
    reply_error(res, 500, message);
  });
}

SessionServer::~SessionServer() = default;

int SessionServer::bind(const std::string& host, int port) {
  const int bound =
      port == 0 ? impl_->server.bind_to_any_port(host) : (impl_->server.bind_to_port(host, port) ? port : -1);
  if (bound <= 0)
    throw SetupError(
        fmt::format("cannot listen on {}:{} (in use, or not an address of this machine)", host, port));
  return bound;
}

void SessionServer::listen() {
  impl_->server.listen_after_bind();
  impl_->listened = true;
}

void SessionServer::stop() {
  // A stop that comes before listen() has started would be lost (cpp-httplib stops only a running
  // server): wait for it to run, or to have returned.
  while (!impl_->server.is_running() && !impl_->listened) std::this_thread::yield();
  impl_->server.stop();
}

}  // namespace pcglab::poker
