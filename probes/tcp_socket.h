// Small socket helpers for the TCP prober and responder: an owning fd, and blocking-with-deadline
// send/receive built on non-blocking sockets and poll(2), so no call can wait forever.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "collector/model/result.h"

namespace rdmatop::probes {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release();
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

using Deadline = std::chrono::steady_clock::time_point;

/// Sets or clears O_NONBLOCK (cleared: for a socket whose receives wait in recv, bounded by
/// SO_RCVTIMEO).
std::optional<Error> set_nonblocking(int fd, bool nonblocking);
/// Waits until `fd` reports one of `events` (POLLIN/POLLOUT); ETIMEDOUT at the deadline.
std::optional<Error> wait_fd(int fd, short events, Deadline deadline);
/// Sends every byte before the deadline (MSG_NOSIGNAL: a closed peer is an error, not SIGPIPE;
/// MSG_DONTWAIT: a blocking socket waits in poll, bounded by the deadline, not in send).
std::optional<Error> send_all(int fd, std::span<const std::uint8_t> bytes, Deadline deadline);
/// Receives exactly bytes.size() bytes before the deadline; ECONNRESET on orderly close.
std::optional<Error> recv_exact(int fd, std::span<std::uint8_t> bytes, Deadline deadline);

/// Resolves host:port and connects a non-blocking TCP socket before the deadline, optionally
/// bound to `local_address`. The Error names the step ("resolve", "bind", "connect").
Result<UniqueFd> tcp_connect(const std::string& host, std::uint16_t port,
                             const std::string& local_address, Deadline deadline);

}  // namespace rdmatop::probes
