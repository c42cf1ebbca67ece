// The TCP baseline: the same handshake and the same echo as rc_send, over a TCP_NODELAY socket,
// so RDMA and TCP latency over the same path are measured the same way.
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>

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
    // From here on the echo is awaited inside recv (a blocking socket, bounded by SO_RCVTIMEO):
    // one system call per echo instead of poll and recv; sends stay non-blocking (send_all's
    // MSG_DONTWAIT).
    if (auto err = set_nonblocking(fd->get(), false)) return err;
    fd_ = std::move(fd.value());
    // A fixed payload pattern, written once: the echo is compared whole, so a corrupted byte
    // still shows, and the header's sequence tells one ping's echo from another's (a per-ping
    // pattern cost up to 16 KB of writes per ping).
    frame_.resize(kFrameHeaderSize + options_.max_payload);
    for (std::size_t i = kFrameHeaderSize; i < frame_.size(); ++i) {
      frame_[i] = static_cast<std::uint8_t>(i * 131 + 7);
    }
    inbox_.resize(kFrameHeaderSize + options_.max_payload);
    held_ = 0;
    receive_timeout_ = std::chrono::milliseconds(0);
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
    std::memcpy(frame_.data(), header.data(), header.size());  // the payload was written once
    const std::span<const std::uint8_t> frame(frame_.data(), kFrameHeaderSize + payload_bytes);
    const auto start = Clock::now();
    const auto deadline = start + timeout;
    if (auto err = send_all(fd_.get(), frame, deadline)) return broken(result, *err);
    // Answers to earlier pings that timed out may still arrive first: skip them by sequence.
    // The echo is read whole in one recv where it arrived whole.
    for (;;) {
      if (auto err = fill(kFrameHeaderSize, frame.size(), deadline)) return failed(result, *err);
      auto got = decode_frame_header(std::span(inbox_).first(kFrameHeaderSize),
                                     static_cast<std::uint32_t>(options_.max_payload));
      if (!got) return broken(result, got.error());
      const std::size_t total = kFrameHeaderSize + got->payload_len;
      if (auto err = fill(total, total, deadline)) return failed(result, *err);
      if (got->sequence == seq) {
        const auto end = Clock::now();
        const bool same = got->payload_len == payload_bytes &&
                          std::equal(frame.begin(), frame.end(), inbox_.begin());
        consume(total);
        if (!same) return broken(result, Error{EPROTO, "echo differs from the ping"});
        result.outcome = PingResult::Outcome::answered;
        result.rtt = end - start;
        return result;
      }
      consume(total);
      if (got->sequence > seq) {
        return broken(result, Error{EPROTO, fmt::format("echo of unsent ping {}", got->sequence)});
      }
    }
  }

  void disconnect() override {
    fd_.reset();
    held_ = 0;
  }
  bool connected() const override { return static_cast<bool>(fd_); }
  std::uint64_t registered_bytes() const override { return 0; }

 private:
  // Receives until the inbox holds at least `size` bytes, asking for up to `want` (>= size, at
  // most a whole frame) so that a whole frame is taken in one call. Each recv blocks for at
  // most the time left before the deadline.
  std::optional<Error> fill(std::size_t size, std::size_t want, Clock::time_point deadline) {
    while (held_ < size) {
      if (auto err = bound_wait(deadline)) return err;
      const std::size_t goal = std::max(size, want);
      const ssize_t n = ::recv(fd_.get(), inbox_.data() + held_, goal - held_, 0);
      if (n > 0) {
        held_ += static_cast<std::size_t>(n);
        continue;
      }
      if (n == 0) return Error{ECONNRESET, "responder closed the connection"};
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;  // deadline next
      return errno_error(errno, "recv");
    }
    return std::nullopt;
  }

  // Makes the next blocking recv return by the deadline: SO_RCVTIMEO is set only when the time
  // left (in whole milliseconds, rounded up) differs from the one set, so pings with the same
  // timeout set it once per connection. ETIMEDOUT once the deadline has passed (a zero
  // SO_RCVTIMEO would mean no limit: never set).
  std::optional<Error> bound_wait(Clock::time_point deadline) {
    const auto left = deadline - Clock::now();
    if (left <= Clock::duration::zero()) return Error{ETIMEDOUT, "timed out"};
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(left);
    // Up to a millisecond past the deadline is accepted: the same timeout rounds to the same
    // whole milliseconds from one ping to the next.
    if (receive_timeout_ >= wait && receive_timeout_ <= wait + std::chrono::milliseconds(1)) {
      return std::nullopt;
    }
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(wait.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((wait.count() % 1000) * 1000);
    if (setsockopt(fd_.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0) {
      return errno_error(errno, "setsockopt SO_RCVTIMEO");
    }
    receive_timeout_ = wait;
    return std::nullopt;
  }

  // Drops the first `bytes` of the inbox (a frame handled), keeping what followed it.
  void consume(std::size_t bytes) {
    std::memmove(inbox_.data(), inbox_.data() + bytes, held_ - bytes);
    held_ -= bytes;
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
  /// Received bytes not yet handled: the first held_ of a buffer sized once for the largest
  /// frame (resizing a vector per read zero-filled it: a measurable share of a ping's CPU).
  std::vector<std::uint8_t> inbox_;
  std::size_t held_ = 0;
  std::chrono::milliseconds receive_timeout_{0};  ///< SO_RCVTIMEO as set; 0: not yet
  std::uint64_t sequence_ = 0;
};

}  // namespace

std::unique_ptr<Transport> make_tcp_transport(const ProbeOptions& options) {
  return std::make_unique<TcpTransport>(options);
}

}  // namespace rdmatop::probes
