// A FIFO for tests of readers that must not block on one. While it lives, a thread keeps
// opening the FIFO for writing (O_NONBLOCK, which fails with ENXIO until a reader has it open,
// see fifo(7)) and closes it at once: a reader that wrongly blocks in open(2) or read(2) is
// released with an empty read, so a regression makes the test fail instead of hanging the
// suite.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>

namespace rdmatop::test {

class FifoUnblocker {
 public:
  explicit FifoUnblocker(std::string path) : path_(std::move(path)) {
    REQUIRE(::mkfifo(path_.c_str(), 0600) == 0);
    thread_ = std::thread([this] {
      while (!stop_.load()) {
        const int fd = ::open(path_.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0) ::close(fd);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    });
  }
  ~FifoUnblocker() {
    stop_.store(true);
    thread_.join();
  }
  FifoUnblocker(const FifoUnblocker&) = delete;
  FifoUnblocker& operator=(const FifoUnblocker&) = delete;

 private:
  std::string path_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace rdmatop::test
