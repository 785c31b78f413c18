// The hostile suite's fixture: one pool of two sandbox workers shared by every program, the
// host-side things a program must not reach (a canary folder, a fake home with ~/.ssh, an API key
// in the environment, a TCP listener on 127.0.0.1), and the checks every program ends with: the
// host process is alive, nothing outside the sandbox changed, and the next item on the pool works.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sandbox/worker_pool.h"
#include "sandbox_testing.h"
#include "testing/testing.h"

namespace pcglab::sandbox::testing {

inline constexpr const char* kSecretKey = "sk-pcglab-hostile-test-secret-4f1d";
inline constexpr const char* kSshSecret = "PCGLAB-FAKE-SSH-PRIVATE-KEY";

class HostileTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    setenv("OPENAI_API_KEY", kSecretKey, 1);
    dir_ = std::make_unique<pcglab::testing::TempDir>();
    std::filesystem::create_directories(dir_->path() / "canary");
    std::ofstream(dir_->path() / "canary" / "canary.txt") << "untouched";
    std::filesystem::create_directories(dir_->path() / "home" / ".ssh");
    std::ofstream(dir_->path() / "home" / ".ssh" / "id_rsa") << kSshSecret;
    listener_ = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    listen(listener_, 16);
    socklen_t len = sizeof addr;
    getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  static void TearDownTestSuite() {
    pool_.reset();
    close(listener_);
    dir_.reset();
    unsetenv("OPENAI_API_KEY");
  }

  void SetUp() override {
    PCGLAB_REQUIRE_SANDBOX();
    if (!pool_) pool_ = std::make_unique<WorkerPool>(PoolConfig{small_config(), 2, false});
  }

  // The program with its placeholders filled in: @CANARY@ @HOME@ @SRC@ @HOSTPID@ @PORT@.
  static std::string fill(std::string source) {
    const auto replace = [&](const std::string& from, const std::string& to) {
      for (size_t p = source.find(from); p != std::string::npos; p = source.find(from, p + to.size()))
        source.replace(p, from.size(), to);
    };
    replace("@CANARY@", (dir_->path() / "canary").string());
    replace("@HOME@", (dir_->path() / "home").string());
    replace("@REALHOME@", std::getenv("HOME") != nullptr ? std::getenv("HOME") : "/root");
    replace("@SRC@", pcglab::testing::source_dir().string());
    replace("@HOSTPID@", std::to_string(getpid()));
    replace("@PORT@", std::to_string(port_));
    return source;
  }

  // Runs `main()` of the program, with @DIR@ replaced by `dir`, as one item of the pool.
  static Reply run_program(std::string source, const std::string& dir) {
    for (size_t p = source.find("@DIR@"); p != std::string::npos; p = source.find("@DIR@", p + dir.size()))
      source.replace(p, 5, dir);
    return run(source);
  }

  // Runs `main()` of the program as one item of the pool.
  static Reply run(const std::string& source, const std::string& function = "main") {
    return pool_->run("hostile.py", fill(source), function);
  }

  // The program fails with `kind` and a description that contains `words`; then the common checks.
  static void expect_contained(const std::string& source, ErrorKind kind, const std::string& words) {
    const Reply r = run(source);
    ASSERT_FALSE(r.ok()) << "the program succeeded: " << to_json(*r.value).dump();
    EXPECT_EQ(error_kind_name(r.failure.kind), std::string(error_kind_name(kind))) << r.describe();
    EXPECT_THAT(r.describe(), ::testing::HasSubstr(words));
    expect_no_secret(r.describe() + r.output);
    expect_host_unchanged();
    expect_next_item_works();
  }

  // Fills `folder` (a tmpfs of 16 MB in small_config) with 400 MB: the item's memory error after
  // at most the tmpfs's size was written; the next item finds the folder empty, and the host's
  // /dev/shm has no such file.
  static void expect_tmpfs_capped(const std::string& folder) {
    const Reply r = run_program(R"PY(
import os
def main():
    written = 0
    try:
        for k in range(100):
            with open('@DIR@/pcglab-hostile-fill%d' % k, 'wb') as f:
                for _ in range(4):
                    f.write(b'x' * (1 << 20))
                    f.flush()
                    written += 1 << 20
    finally:
        print('written', written)
)PY",
                                folder);
    ASSERT_FALSE(r.ok()) << "wrote 400 MB into " << folder;
    EXPECT_EQ(r.failure.kind, ErrorKind::kLimit) << r.describe();
    EXPECT_EQ(r.failure.cause, "memory") << r.describe();
    EXPECT_THAT(r.describe(), ::testing::HasSubstr("tmpfs of 16 MB and 16 MB"));
    const size_t at = r.output.find("written ");
    ASSERT_NE(at, std::string::npos) << r.output;
    EXPECT_LE(std::stoll(r.output.substr(at + 8)), 16ll << 20) << r.output;
    const Reply next = run_program("import os\ndef main():\n    return os.listdir('@DIR@')\n", folder);
    ASSERT_TRUE(next.ok()) << next.describe();
    EXPECT_EQ(to_json(*next.value).dump(), "[]");
    EXPECT_FALSE(std::filesystem::exists("/dev/shm/pcglab-hostile-fill0"));
  }

  static void expect_no_secret(const std::string& text) {
    EXPECT_THAT(text, ::testing::Not(::testing::HasSubstr(kSecretKey)));
    EXPECT_THAT(text, ::testing::Not(::testing::HasSubstr(kSshSecret)));
  }

  // Nothing the programs aim at changed, and no connection reached the listener.
  static void expect_host_unchanged() {
    namespace fs = std::filesystem;
    size_t entries = 0;
    for (const auto& e : fs::directory_iterator(dir_->path() / "canary")) {
      ++entries;
      EXPECT_EQ(e.path().filename(), "canary.txt");
    }
    EXPECT_EQ(entries, 1u);
    std::ifstream in(dir_->path() / "canary" / "canary.txt");
    std::string content((std::istreambuf_iterator<char>(in)), {});
    EXPECT_EQ(content, "untouched");
    for (const fs::path& folder :
         {dir_->path() / "home", fs::path(std::getenv("HOME") ? std::getenv("HOME") : "/root"),
          pcglab::testing::source_dir(), fs::path("/tmp"), fs::path("/dev/shm")})
      EXPECT_FALSE(fs::exists(folder / "pcglab-hostile-was-here")) << folder;
    const int accepted = accept(listener_, nullptr, nullptr);
    EXPECT_LT(accepted, 0) << "a sandboxed program connected to the host's listener";
    if (accepted >= 0) close(accepted);
    EXPECT_STREQ(std::getenv("OPENAI_API_KEY"), kSecretKey);
  }

  static void expect_next_item_works() {
    const Reply r = pool_->run("ok.py", "import numpy as np\ndef main(x):\n    return int(np.int64(x) * 2)\n",
                               "main", {Value(21)});
    ASSERT_TRUE(r.ok()) << r.describe();
    EXPECT_EQ(r.value->as_int(), 42);
  }

  static inline std::unique_ptr<pcglab::testing::TempDir> dir_;
  static inline std::unique_ptr<WorkerPool> pool_;
  static inline int listener_ = -1;
  static inline int port_ = 0;
};

}  // namespace pcglab::sandbox::testing
