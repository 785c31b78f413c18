// A fake OpenAI-compatible server on 127.0.0.1 for tests: scripted replies and faults, counted,
// and the TCP connections it accepted (cpp-httplib hands each accepted connection to its task
// queue once: a queue that counts them), so tests can see keep-alive at work.
#pragma once

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/json.h"
#include "testing/loopback_http.h"

namespace pcglab::llm::testing {

struct FakeReply {
  int status = 200;
  std::string body;  // empty with status 200: a completion echoing "content"
  std::string content = "ok";
  std::string retry_after;  // Retry-After header when not empty
  int delay_ms = 0;         // before answering (to trigger client timeouts)
  // Conditions instead of sleeps, for tests that must not depend on timing: the reply waits until
  // the test calls open_gate() (hold), or until the server has seen this many requests at once.
  bool hold = false;
  int wait_for_in_flight = 0;
  // The body streamed in chunks (Transfer-Encoding: chunked, no Content-Length), as a server that
  // generates its reply as it goes sends it.
  bool chunked = false;
};

inline FakeReply reply(int status, std::string body = "", std::string content = "ok",
                       std::string retry_after = "", int delay_ms = 0) {
  return FakeReply{status, std::move(body), std::move(content), std::move(retry_after), delay_ms};
}

// cpp-httplib's thread pool, counting the connections handed to it.
class CountingTaskQueue : public httplib::TaskQueue {
 public:
  CountingTaskQueue(size_t threads, std::atomic<int>& accepted) : pool_(threads), accepted_(accepted) {}
  void enqueue(std::function<void()> fn) override {
    ++accepted_;
    pool_.enqueue(std::move(fn));
  }
  void shutdown() override { pool_.shutdown(); }

 private:
  httplib::ThreadPool pool_;
  std::atomic<int>& accepted_;
};

struct FakeServerOptions {
  // Requests the server answers on one connection before it closes it (cpp-httplib's default 5).
  int keep_alive_max_count = 5;
};

class FakeOpenAiServer {
 public:
  explicit FakeOpenAiServer(FakeServerOptions options = {}) {
    server_.new_task_queue = [this] { return new CountingTaskQueue(32, connections_); };
    server_.set_keep_alive_max_count(static_cast<size_t>(options.keep_alive_max_count));
    server_.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
      FakeReply reply;
      {
        std::lock_guard lock(mutex_);
        const int index = static_cast<int>(requests_.size());
        requests_.push_back(req.body);
        authorization_.push_back(req.get_header_value("Authorization"));
        if (!script_.empty()) {
          reply = script_.front();
          script_.pop_front();
        } else if (responder_) {
          reply = responder_(req.body, index);
        }
        max_in_flight_ = std::max(max_in_flight_, ++in_flight_);
      }
      changed_.notify_all();
      {
        std::unique_lock lock(mutex_);
        ++waiting_;
        changed_.notify_all();
        changed_.wait(lock, [&] {
          return stopping_ || ((!reply.hold || gate_open_) && max_in_flight_ >= reply.wait_for_in_flight);
        });
        --waiting_;
      }
      if (reply.delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(reply.delay_ms));
      res.status = reply.status;
      if (!reply.retry_after.empty()) res.set_header("Retry-After", reply.retry_after);
      std::string body = reply.body;
      if (body.empty() && reply.status == 200) {
        body =
            R"({"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":)" +
            Json(reply.content).dump() +
            R"(},"finish_reason":"stop"}],"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}})";
      }
      if (reply.chunked) {
        auto text = std::make_shared<std::string>(std::move(body));
        res.set_chunked_content_provider("application/json", [text](size_t offset, httplib::DataSink& sink) {
          const size_t n = std::min<size_t>(64 * 1024, text->size() - std::min(offset, text->size()));
          if (n > 0 && !sink.write(text->data() + offset, n)) return false;
          if (offset + n >= text->size()) sink.done();
          return true;
        });
      } else {
        res.set_content(body, "application/json");
      }
      std::lock_guard lock(mutex_);
      --in_flight_;
    });
    port_ = pcglab::testing::bind_loopback(server_);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeOpenAiServer() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    server_.stop();
    thread_.join();
  }

  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  void script(std::vector<FakeReply> replies) {
    std::lock_guard lock(mutex_);
    for (auto& r : replies) script_.push_back(std::move(r));
  }
  std::vector<std::string> requests() {
    std::lock_guard lock(mutex_);
    return requests_;
  }
  // Answers requests when no scripted reply is left: f(request body, request index).
  void set_responder(std::function<FakeReply(const std::string&, int)> f) {
    std::lock_guard lock(mutex_);
    responder_ = std::move(f);
  }
  // Lets every held reply (and every later one) through.
  void open_gate() {
    {
      std::lock_guard lock(mutex_);
      gate_open_ = true;
    }
    changed_.notify_all();
  }
  // Blocks until `done(requests received, replies waiting at the gate)` holds; false after a
  // three minutes (a hang, not a timing decision).
  bool wait_until(const std::function<bool(size_t received, int waiting)>& done) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(180),
                             [&] { return done(requests_.size(), waiting_); });
  }
  int max_in_flight() {
    std::lock_guard lock(mutex_);
    return max_in_flight_;
  }
  size_t request_count() {
    std::lock_guard lock(mutex_);
    return requests_.size();
  }
  // TCP connections accepted so far.
  int connections() const { return connections_.load(); }
  std::vector<std::string> authorization_headers() {
    std::lock_guard lock(mutex_);
    return authorization_;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::atomic<int> connections_{0};
  std::thread thread_;
  std::mutex mutex_;
  std::deque<FakeReply> script_;
  std::vector<std::string> requests_;
  std::vector<std::string> authorization_;
  std::function<FakeReply(const std::string&, int)> responder_;
  int in_flight_ = 0, max_in_flight_ = 0;
  std::condition_variable changed_;
  int waiting_ = 0;  // replies waiting for their condition (held ones included)
  bool gate_open_ = false, stopping_ = false;
};

}  // namespace pcglab::llm::testing
