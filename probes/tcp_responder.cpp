#include "probes/tcp_responder.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <list>
#include <vector>

#include <fmt/format.h>

#include "probes/address.h"
#include "probes/handshake.h"
#include "probes/tcp_socket.h"

namespace rdmatop::probes {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::array<TransportKind, 1> kServed{TransportKind::tcp};
// Before its hello a connection holds only the hello buffer.
constexpr std::uint64_t kHandshakeBytes = kHelloSize;

}  // namespace

struct TcpResponder::Impl final : ResponderCore {
  struct Connection {
    UniqueFd fd;
    PeerAddress peer{};
    bool established = false;
    std::uint32_t max_payload = 0;
    std::uint64_t reserved = 0;
    std::vector<std::uint8_t> rx;   ///< bytes of the message being received
    std::size_t need = kHelloSize;  ///< rx is complete at this size
    std::vector<std::uint8_t> tx;   ///< echo (or refusal) being sent
    std::size_t tx_done = 0;
    bool close_after_tx = false;
    /// Handshake, then idle: moved only by a complete hello or frame, never by a lone byte.
    Clock::time_point deadline{};
    /// Set while a frame is partly received or an echo partly sent (frame_timeout), else max().
    Clock::time_point frame_deadline = Clock::time_point::max();
  };

  UniqueFd listener;
  Admission admission;
  ResponderLog log;
  std::list<Connection> connections;

  Impl(ResponderLimits limits, ResponderLog l) : admission(std::move(limits)), log(std::move(l)) {}

  void refuse_log(const PeerAddress& peer, const Decision& decision) {
    record_refusal(admission, counters, log, "tcp", peer, decision);
  }

  void accept_new() {
    for (;;) {
      sockaddr_storage addr{};
      socklen_t len = sizeof(addr);
      const int raw = ::accept4(listener.get(), reinterpret_cast<sockaddr*>(&addr), &len,
                                SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (raw < 0) return;  // EAGAIN: drained; EMFILE and friends: retry on the next poll
      UniqueFd fd(raw);
      auto peer = peer_address_from_sockaddr(reinterpret_cast<const sockaddr*>(&addr));
      if (!peer) continue;
      const auto now = Clock::now();
      Decision decision = admission.admit_peer(*peer, now);
      if (decision.accepted()) decision = admission.reserve(*peer, kHandshakeBytes);
      if (!decision.accepted()) {
        // Best effort, never blocking: tell the peer why, then close.
        const AcceptBytes bytes = encode_refusal(decision.status, std::nullopt, "");
        [[maybe_unused]] const ssize_t n =
            ::send(fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        refuse_log(*peer, decision);
        continue;
      }
      const int one = 1;
      setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      Connection conn;
      conn.fd = std::move(fd);
      conn.peer = *peer;
      conn.reserved = kHandshakeBytes;
      conn.rx.reserve(kHelloSize);
      conn.deadline = now + admission.limits().handshake_timeout;
      connections.push_back(std::move(conn));
      counters.active.store(static_cast<std::uint32_t>(connections.size()),
                            std::memory_order_relaxed);
    }
  }

  // Returns false when the connection is finished.
  bool on_hello(Connection& c) {
    const HelloVerdict verdict = judge_hello(admission, c.rx, Padding::exact, kServed);
    Decision decision = verdict.decision;
    const std::string& secret = admission.limits().shared_secret;
    if (decision.accepted()) {
      // Two frame buffers: the one being received and the echo being sent.
      const std::uint64_t bytes = 2 * (kFrameHeaderSize + verdict.hello->max_payload);
      decision = admission.resize(c.reserved, bytes);
      if (decision.accepted()) c.reserved = bytes;
    }
    if (!decision.accepted()) {
      const AcceptBytes bytes = encode_refusal(decision.status, verdict.hello, secret);
      c.tx.assign(bytes.begin(), bytes.end());
      c.close_after_tx = true;
      refuse_log(c.peer, decision);
      return true;
    }
    Accept accept;
    accept.max_payload = verdict.hello->max_payload;
    accept.nonce = make_responder_nonce();
    const AcceptBytes bytes = encode_accept(accept, verdict.hello->nonce, secret);
    c.tx.assign(bytes.begin(), bytes.end());
    c.established = true;
    // The first ping gets the idle timeout, as every later one does (docs/probe-protocol.md).
    c.deadline = Clock::now() + admission.limits().idle_timeout;
    c.max_payload = verdict.hello->max_payload;
    c.rx.clear();
    c.rx.reserve(kFrameHeaderSize + c.max_payload);
    c.need = kFrameHeaderSize;
    counters.accepted.fetch_add(1, std::memory_order_relaxed);
    return true;
  }

  bool on_frame_bytes(Connection& c) {
    if (c.rx.size() == kFrameHeaderSize && c.need == kFrameHeaderSize) {
      auto header = decode_frame_header(c.rx, c.max_payload);
      if (!header) return false;  // a broken stream cannot be resynchronised: close
      c.need = kFrameHeaderSize + header->payload_len;
      if (c.need > kFrameHeaderSize) return true;
    }
    if (c.rx.size() < c.need) return true;
    c.tx.swap(c.rx);
    c.rx.clear();
    c.need = kFrameHeaderSize;
    const auto now = Clock::now();
    c.deadline = now + admission.limits().idle_timeout;
    c.frame_deadline = now + admission.limits().frame_timeout;  // for the echo to be taken
    counters.echoed.fetch_add(1, std::memory_order_relaxed);
    return true;
  }

  bool on_readable(Connection& c) {
    while (c.tx.empty() && c.rx.size() < c.need) {
      const std::size_t before = c.rx.size();
      c.rx.resize(c.need);
      const ssize_t n = ::recv(c.fd.get(), c.rx.data() + before, c.need - before, 0);
      c.rx.resize(before + (n > 0 ? static_cast<std::size_t>(n) : 0));
      if (n == 0) return false;
      if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
      // A frame's clock starts at its first byte and is absolute: trickling bytes of a frame
      // never finished cannot keep the connection (the hello has handshake_timeout instead).
      if (c.established && before == 0) {
        c.frame_deadline = Clock::now() + admission.limits().frame_timeout;
      }
      if (c.rx.size() < c.need) continue;
      if (!c.established) {
        if (!on_hello(c)) return false;
      } else if (!on_frame_bytes(c)) {
        return false;
      }
    }
    return true;
  }

  bool on_writable(Connection& c) {
    while (c.tx_done < c.tx.size()) {
      const ssize_t n = ::send(c.fd.get(), c.tx.data() + c.tx_done, c.tx.size() - c.tx_done,
                               MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
      c.tx_done += static_cast<std::size_t>(n);
    }
    c.tx.clear();
    c.tx_done = 0;
    c.frame_deadline = Clock::time_point::max();
    return !c.close_after_tx;
  }

  void close(std::list<Connection>::iterator it) {
    admission.release(it->peer, it->reserved);
    connections.erase(it);
    counters.active.store(static_cast<std::uint32_t>(connections.size()),
                          std::memory_order_relaxed);
  }

  void close_all() override {
    while (!connections.empty()) close(connections.begin());
  }

  void poll_once(std::chrono::milliseconds max_wait) override {
    std::vector<pollfd> fds;
    fds.reserve(connections.size() + 1);
    fds.push_back({listener.get(), POLLIN, 0});
    auto wake = Clock::now() + max_wait;
    for (const auto& c : connections) {
      fds.push_back({c.fd.get(), static_cast<short>(c.tx.empty() ? POLLIN : POLLOUT), 0});
      wake = std::min({wake, c.deadline, c.frame_deadline});
    }
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(wake - Clock::now());
    const int rc = ::poll(fds.data(), fds.size(),
                          static_cast<int>(std::clamp<long long>(wait.count() + 1, 0, 1000)));
    if (rc < 0) return;  // EINTR: the caller loops
    const auto now = Clock::now();
    std::size_t i = 1;
    for (auto it = connections.begin(); it != connections.end(); ++i) {
      const short revents = i < fds.size() ? fds[i].revents : 0;
      bool keep = true;
      if ((revents & (POLLERR | POLLNVAL)) != 0) {
        keep = false;
      } else if ((revents & POLLOUT) != 0) {
        keep = on_writable(*it);
        if (keep && it->tx.empty()) keep = on_readable(*it);  // pipelined bytes may be waiting
      } else if ((revents & (POLLIN | POLLHUP)) != 0) {
        keep = on_readable(*it);
        if (keep && !it->tx.empty()) keep = on_writable(*it);
      }
      if (keep && (now >= it->deadline || now >= it->frame_deadline)) {
        if (!it->established) {
          refuse_log(it->peer, {AcceptStatus::bad_hello, "no complete hello in time"});
        }
        keep = false;
      }
      if (keep) {
        ++it;
      } else {
        auto dead = it++;
        close(dead);
      }
    }
    if ((fds[0].revents & POLLIN) != 0) accept_new();
  }
};

TcpResponder::TcpResponder(std::unique_ptr<Impl> impl) : Responder(std::move(impl)) {}
TcpResponder::~TcpResponder() = default;

Result<std::unique_ptr<TcpResponder>> TcpResponder::listen(const std::string& address,
                                                           std::uint16_t port,
                                                           ResponderLimits limits,
                                                           ResponderLog log) {
  auto resolved =
      resolve_stream(address, std::to_string(port), AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV);
  if (!resolved) return Error{EINVAL, "listen: " + resolved.error().message};
  const addrinfo* ai = resolved->get();
  UniqueFd fd(::socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd) return errno_error(errno, "socket");
  const int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (::bind(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0) {
    return errno_error(errno, fmt::format("bind tcp {}:{}", address, port));
  }
  // SOMAXCONN (4096 since Linux 5.4, net.core.somaxconn caps it): a connection flood overflows
  // a short backlog before the loop can refuse each one with a reason (listen(2)).
  if (::listen(fd.get(), SOMAXCONN) != 0) return errno_error(errno, "listen");
  auto impl = std::make_unique<Impl>(std::move(limits), std::move(log));
  impl->listener = std::move(fd);
  return std::unique_ptr<TcpResponder>(new TcpResponder(std::move(impl)));
}

std::uint16_t TcpResponder::port() const {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  getsockname(static_cast<const Impl&>(*core_).listener.get(), reinterpret_cast<sockaddr*>(&addr),
              &len);
  if (addr.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_port);
  }
  return ntohs(reinterpret_cast<const sockaddr_in*>(&addr)->sin_port);
}

}  // namespace rdmatop::probes
