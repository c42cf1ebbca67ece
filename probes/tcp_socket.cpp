#include "probes/tcp_socket.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "probes/address.h"

namespace rdmatop::probes {
namespace {

int remaining_ms(Deadline deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return 0;
  // Round up so a sub-millisecond remainder still waits instead of spinning.
  return static_cast<int>(std::min<long long>(left.count() + 1, 1 << 30));
}

}  // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) reset(other.release());
  return *this;
}

int UniqueFd::release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

void UniqueFd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

std::optional<Error> set_nonblocking(int fd, bool nonblocking) {
  const int flags = fcntl(fd, F_GETFL);
  const int wanted = nonblocking ? flags | O_NONBLOCK : flags & ~O_NONBLOCK;
  if (flags < 0 || fcntl(fd, F_SETFL, wanted) < 0) {
    return errno_error(errno, nonblocking ? "fcntl O_NONBLOCK" : "fcntl ~O_NONBLOCK");
  }
  return std::nullopt;
}

std::optional<Error> wait_fd(int fd, short events, Deadline deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int rc = ::poll(&p, 1, remaining_ms(deadline));
    if (rc > 0) return std::nullopt;  // errors and hang-ups surface in the next send/recv
    if (rc == 0) return Error{ETIMEDOUT, "timed out"};
    if (errno != EINTR) return errno_error(errno, "poll");
  }
}

std::optional<Error> send_all(int fd, std::span<const std::uint8_t> bytes, Deadline deadline) {
  while (!bytes.empty()) {
    // MSG_DONTWAIT: never blocks past the deadline, on a blocking socket too (the prober's).
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      bytes = bytes.subspan(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (auto err = wait_fd(fd, POLLOUT, deadline)) return err;
      continue;
    }
    return errno_error(n < 0 ? errno : EPIPE, "send");
  }
  return std::nullopt;
}

std::optional<Error> recv_exact(int fd, std::span<std::uint8_t> bytes, Deadline deadline) {
  while (!bytes.empty()) {
    const ssize_t n = ::recv(fd, bytes.data(), bytes.size(), MSG_DONTWAIT);  // as send_all
    if (n > 0) {
      bytes = bytes.subspan(static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) return Error{ECONNRESET, "recv: peer closed the connection"};
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (auto err = wait_fd(fd, POLLIN, deadline)) return err;
      continue;
    }
    return errno_error(errno, "recv");
  }
  return std::nullopt;
}

Result<UniqueFd> tcp_connect(const std::string& host, std::uint16_t port,
                             const std::string& local_address, Deadline deadline) {
  auto remote = resolve_stream(host, std::to_string(port), AI_NUMERICSERV);
  if (!remote) return remote.error();
  Error last{EHOSTUNREACH, fmt::format("connect {}: no address", host)};
  for (const addrinfo* ai = remote->get(); ai != nullptr; ai = ai->ai_next) {
    UniqueFd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
    if (!fd) {
      last = errno_error(errno, "socket");
      continue;
    }
    if (auto err = set_nonblocking(fd.get(), true)) return *err;
    if (!local_address.empty()) {
      auto local = resolve_stream(local_address, "", AI_NUMERICHOST | AI_PASSIVE);
      if (!local) return local.error();
      if (::bind(fd.get(), local->get()->ai_addr, local->get()->ai_addrlen) != 0) {
        last = errno_error(errno, fmt::format("bind {}", local_address));
        continue;
      }
    }
    if (::connect(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
      last = errno_error(errno, fmt::format("connect {}:{}", host, port));
      continue;
    }
    if (auto err = wait_fd(fd.get(), POLLOUT, deadline)) {
      return Error{err->code, fmt::format("connect {}:{}: {}", host, port, err->message)};
    }
    int so_error = 0;
    socklen_t len = sizeof(so_error);
    getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &so_error, &len);
    if (so_error != 0) {
      last = errno_error(so_error, fmt::format("connect {}:{}", host, port));
      continue;
    }
    return fd;
  }
  return last;
}

}  // namespace rdmatop::probes
