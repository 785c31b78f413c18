// Client overhead per chat request against a loopback server (target: median < 1 ms), keep-alive
// (requests per second with a new connection per request vs connections reused, one thread and
// eight), and the in-flight limit of the rate limiter under load (reached and never exceeded).
//
//   build/release/bench/llm_client_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "core/thread_pool.h"
#include "llm/chat_client.h"
#include "llm/rate_limiter.h"
#include "testing/loopback_http.h"

namespace {

constexpr const char* kReply =
    R"({"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"```\ndrop_block('b11', 5)\n```"},"finish_reason":"stop"}],"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}})";

struct LoopbackServer {
  httplib::Server server;
  std::thread thread;
  int port = 0;
  std::atomic<int> in_flight{0}, max_in_flight{0};
  int delay_ms = 0;
  LoopbackServer() {
    server.new_task_queue = [] { return new httplib::ThreadPool(32); };
    server.set_keep_alive_max_count(1000000);  // a real server's keep-alive (httplib's default is 5)
    server.Post("/v1/chat/completions", [this](const httplib::Request&, httplib::Response& res) {
      const int n = ++in_flight;
      int m = max_in_flight.load();
      while (n > m && !max_in_flight.compare_exchange_weak(m, n)) {
      }
      if (delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      res.set_content(kReply, "application/json");
      --in_flight;
    });
    port = pcglab::testing::bind_loopback(server);
    thread = std::thread([this] { server.listen_after_bind(); });
    while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~LoopbackServer() {
    server.stop();
    thread.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port) + "/v1"; }
};

pcglab::llm::ChatRequest request() {
  pcglab::llm::ChatRequest r;
  r.model = "bench";
  r.messages.push_back({"user", "Build the letter A with drop_block."});
  return r;
}

// One request at a time: the whole round trip (client work + loopback HTTP + a server that answers
// at once) is an upper bound of the client's overhead. keep_alive 0: a new connection per request
// (the client before keep-alive); 1: the connection reused.
void BM_ChatRoundTrip(benchmark::State& state) {
  LoopbackServer server;
  pcglab::llm::ClientConfig config;
  config.base_url = server.url();
  config.keep_alive = state.range(0) != 0;
  pcglab::llm::ChatClient client(config);
  const auto req = request();
  for (auto _ : state) {
    auto r = client.complete(req);
    if (!r.ok()) state.SkipWithError(r.error().message.c_str());
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["connections"] = static_cast<double>(client.connections_opened());
}
BENCHMARK(BM_ChatRoundTrip)
    ->ArgName("keep_alive")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// 512 requests from 8 threads through one shared client (as `birds run --concurrency 8` sends them),
// server answering at once: requests per second without and with keep-alive.
void BM_ConcurrentRequests(benchmark::State& state) {
  LoopbackServer server;
  pcglab::llm::ClientConfig config;
  config.base_url = server.url();
  config.keep_alive = state.range(0) != 0;
  pcglab::llm::ChatClient client(config);
  const auto req = request();
  pcglab::ThreadPool pool(8);
  constexpr size_t kRequests = 512;
  for (auto _ : state) {
    std::atomic<int> failed{0};
    pool.parallel_for(kRequests, [&](size_t) { failed += !client.complete(req).ok(); });
    if (failed > 0) state.SkipWithError("a request failed");
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kRequests));
  state.counters["connections"] = static_cast<double>(client.connections_opened());
}
BENCHMARK(BM_ConcurrentRequests)
    ->ArgName("keep_alive")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// 64 requests through the rate limiter with an in-flight limit of 8, from 16 threads, against a
// server that takes 5 ms (ideal: 8 waves = 40 ms) or answers at once: the counters show the server
// never saw more than 8 at once.
void BM_InFlightLimit(benchmark::State& state) {
  LoopbackServer server;
  server.delay_ms = static_cast<int>(state.range(0));
  pcglab::llm::ClientConfig config;
  config.base_url = server.url();
  for (auto _ : state) {
    pcglab::llm::RateLimiter limiter({8, 0, 0});
    pcglab::ThreadPool pool(static_cast<size_t>(state.range(1)));
    pcglab::llm::ChatClient client(config);
    pool.parallel_for(64, [&](size_t) {
      auto permit = limiter.acquire(18);
      auto r = client.complete(request());
      permit.finish(r.ok() ? r.value().usage.total_tokens : 0);
    });
    state.counters["max_in_flight_limiter"] = limiter.max_in_flight_seen();
  }
  state.counters["max_in_flight_server"] = server.max_in_flight.load();
  state.counters["limit"] = 8;
}
BENCHMARK(BM_InFlightLimit)
    ->ArgNames({"server_ms", "threads"})
    ->Args({5, 16})
    ->Args({0, 16})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

}  // namespace
