// The TCP baseline: the same handshake and the same echo as rc_send, over a TCP_NODELAY socket,
// so RDMA and TCP latency over the same path are measured the same way.
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "probes/handshake.h"
#include "probes/tcp_socket.h"
#include "probes/transport.h"

namespace rdmatop::probes {
namespace {

using Clock = std::chrono::steady_clock;

std::optional<Error> set_traffic_class(int fd, std::uint32_t traffic_class) {
  const int value = static_cast<int>(traffic_class);
  sockaddr_storage local{};
  socklen_t len = sizeof(local);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) != 0) {
    return errno_error(errno, "getsockname");
  }
  const bool v6 = local.ss_family == AF_INET6;
  if (setsockopt(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_TCLASS : IP_TOS, &value,
                 sizeof(value)) != 0) {
    return errno_error(errno, v6 ? "setsockopt IPV6_TCLASS" : "setsockopt IP_TOS");
  }
  return std::nullopt;
}

class TcpTransport final : public Transport {
 public:
  explicit TcpTransport(ProbeOptions options) : options_(std::move(options)) {}

  std::optional<Error> connect(const Endpoint& endpoint,
                               std::chrono::milliseconds timeout) override {
    disconnect();
    const auto deadline = Clock::now() + timeout;
    if (options_.max_payload == 0 || options_.max_payload > kProtocolMaxPayload) {
      return Error{EINVAL, fmt::format("max_payload {} outside 1..{}", options_.max_payload,
                                       kProtocolMaxPayload)};
    }
    auto fd = tcp_connect(endpoint.host, endpoint.port, options_.local_address, deadline);
    if (!fd) return fd.error();
    const int one = 1;
    if (setsockopt(fd->get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0) {
      return errno_error(errno, "setsockopt TCP_NODELAY");
    }
    if (options_.traffic_class) {
      if (auto err = set_traffic_class(fd->get(), *options_.traffic_class)) return err;
    }
    const Hello hello =
        make_hello(TransportKind::tcp, static_cast<std::uint32_t>(options_.max_payload));
    const HelloBytes hello_bytes = encode_hello(hello, options_.shared_secret);
    if (auto err = send_all(fd->get(), hello_bytes, deadline)) {
      return Error{err->code, "handshake: " + err->message};
    }
    AcceptBytes accept_bytes{};
    if (auto err = recv_exact(fd->get(), accept_bytes, deadline)) {
      return Error{err->code, "handshake: " + err->message};
    }
    auto accept = check_accept(accept_bytes, Padding::exact, hello, options_.shared_secret);
    if (!accept) return accept.error();
    fd_ = std::move(fd.value());
    frame_.resize(kFrameHeaderSize + options_.max_payload);
    sequence_ = 0;
    return std::nullopt;
  }

  PingResult ping(std::size_t payload_bytes, std::chrono::milliseconds timeout) override {
    PingResult result;
    if (!fd_) {
      result.error = "not connected";
      return result;
    }
    if (payload_bytes > options_.max_payload) {
      result.outcome = PingResult::Outcome::qp_error;
      result.error =
          fmt::format("payload {} above max_payload {}", payload_bytes, options_.max_payload);
      return result;
    }
    const std::uint64_t seq = ++sequence_;
    const FrameHeaderBytes header =
        encode_frame_header({static_cast<std::uint32_t>(payload_bytes), seq});
    std::memcpy(frame_.data(), header.data(), header.size());
    for (std::size_t i = 0; i < payload_bytes; ++i) {
      frame_[kFrameHeaderSize + i] = static_cast<std::uint8_t>(seq + i);
    }
    const std::span<const std::uint8_t> frame(frame_.data(), kFrameHeaderSize + payload_bytes);
    const auto start = Clock::now();
    const auto deadline = start + timeout;
    if (auto err = send_all(fd_.get(), frame, deadline)) return broken(result, *err);
    // Answers to earlier pings that timed out may still arrive first: skip them by sequence.
    // The echo is awaited before the first read (it cannot be there yet: a read would only
    // fail with EAGAIN) and read whole in one recv where it arrived whole.
    bool wait_first = pending_.empty();
    for (;;) {
      if (auto err = fill(kFrameHeaderSize, frame.size(), deadline, wait_first)) {
        return failed(result, *err);
      }
      wait_first = false;
      auto got = decode_frame_header(std::span(pending_).first(kFrameHeaderSize),
                                     static_cast<std::uint32_t>(options_.max_payload));
      if (!got) return broken(result, got.error());
      const std::size_t total = kFrameHeaderSize + got->payload_len;
      if (auto err = fill(total, total, deadline, false)) return failed(result, *err);
      if (got->sequence == seq) {
        const auto end = Clock::now();
        const bool same = got->payload_len == payload_bytes &&
                          std::equal(frame.begin(), frame.end(), pending_.begin());
        pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(total));
        if (!same) return broken(result, Error{EPROTO, "echo differs from the ping"});
        result.outcome = PingResult::Outcome::answered;
        result.rtt = end - start;
        return result;
      }
      pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(total));
      if (got->sequence > seq) {
        return broken(result, Error{EPROTO, fmt::format("echo of unsent ping {}", got->sequence)});
      }
    }
  }

  void disconnect() override {
    fd_.reset();
    pending_.clear();
  }
  bool connected() const override { return static_cast<bool>(fd_); }
  std::uint64_t registered_bytes() const override { return 0; }

 private:
  // Reads until `pending_` holds at least `size` bytes, asking for up to `want` (>= size) so
  // that a whole frame is taken in one call; `wait_first`: poll before the first read.
  std::optional<Error> fill(std::size_t size, std::size_t want, Clock::time_point deadline,
                            bool wait_first) {
    if (pending_.size() < size && wait_first) {
      if (auto err = wait_fd(fd_.get(), POLLIN, deadline)) return err;
    }
    while (pending_.size() < size) {
      const std::size_t before = pending_.size();
      const std::size_t goal = std::max(size, want);
      pending_.resize(goal);
      const ssize_t n = ::recv(fd_.get(), pending_.data() + before, goal - before, 0);
      pending_.resize(before + (n > 0 ? static_cast<std::size_t>(n) : 0));
      if (n > 0) continue;
      if (n == 0) return Error{ECONNRESET, "responder closed the connection"};
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) return errno_error(errno, "recv");
      if (auto err = wait_fd(fd_.get(), POLLIN, deadline)) return err;
    }
    return std::nullopt;
  }

  // A timeout leaves the connection usable (the late echo is skipped by sequence); anything
  // else breaks it.
  PingResult failed(PingResult& result, const Error& error) {
    if (error.code == ETIMEDOUT) {
      result.outcome = PingResult::Outcome::timed_out;
      result.error = "no echo within the timeout";
      return result;
    }
    return broken(result, error);
  }

  PingResult broken(PingResult& result, const Error& error) {
    result.outcome = PingResult::Outcome::qp_error;
    result.error = error.message;
    disconnect();
    return result;
  }

  ProbeOptions options_;
  UniqueFd fd_;
  std::vector<std::uint8_t> frame_;
  std::vector<std::uint8_t> pending_;
  std::uint64_t sequence_ = 0;
};

}  // namespace

std::unique_ptr<Transport> make_tcp_transport(const ProbeOptions& options) {
  return std::make_unique<TcpTransport>(options);
}

}  // namespace rdmatop::probes
