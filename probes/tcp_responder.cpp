#include "probes/tcp_responder.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
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
    std::uint32_t interest = EPOLLIN;      ///< as registered: EPOLLIN, or EPOLLOUT while tx waits
    std::list<Connection>::iterator self;  ///< its place in `connections`, to close it by
  };

  UniqueFd listener;
  /// Ready connections only: poll(2) over every connection made each echo cost O(connections)
  /// (bench/README.md, session 28). The listener's event carries no pointer; a connection's
  /// carries its Connection (std::list: stable addresses).
  UniqueFd epoll;
  /// No connection's deadline is earlier than this: the sweep over all connections runs only
  /// once it has passed, not on every wake-up.
  Clock::time_point next_sweep = Clock::time_point::max();
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
      set_deadline(conn.deadline, now + admission.limits().handshake_timeout);
      connections.push_back(std::move(conn));
      Connection& added = connections.back();
      added.self = std::prev(connections.end());
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.ptr = &added;
      if (epoll_ctl(epoll.get(), EPOLL_CTL_ADD, added.fd.get(), &ev) != 0) {
        close(added.self);  // ENOMEM or ENOSPC (max_user_watches)
        continue;
      }
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
    set_deadline(c.deadline, Clock::now() + admission.limits().idle_timeout);
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
    set_deadline(c.deadline, now + admission.limits().idle_timeout);
    set_deadline(c.frame_deadline, now + admission.limits().frame_timeout);  // the echo's
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
        set_deadline(c.frame_deadline, Clock::now() + admission.limits().frame_timeout);
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
    set_deadline(c.frame_deadline, Clock::time_point::max());
    return !c.close_after_tx;
  }

  // Every deadline of a connection is set here, so the sweep never comes later than one.
  void set_deadline(Clock::time_point& slot, Clock::time_point value) {
    slot = value;
    next_sweep = std::min(next_sweep, value);
  }

  void close(std::list<Connection>::iterator it) {
    admission.release(it->peer, it->reserved);
    connections.erase(it);  // closing the descriptor takes it out of the epoll set
    counters.active.store(static_cast<std::uint32_t>(connections.size()),
                          std::memory_order_relaxed);
  }

  void close_all() override {
    while (!connections.empty()) close(connections.begin());
  }

  // Reads and writes what the event allows; false when the connection is finished.
  bool on_event(Connection& c, std::uint32_t events) {
    if ((events & EPOLLERR) != 0) return false;
    bool keep = true;
    if ((events & EPOLLOUT) != 0) {
      keep = on_writable(c);
      if (keep && c.tx.empty()) keep = on_readable(c);  // pipelined bytes may be waiting
    } else if ((events & (EPOLLIN | EPOLLHUP)) != 0) {
      keep = on_readable(c);
      if (keep && !c.tx.empty()) keep = on_writable(c);
    }
    // Waiting for the peer to take an echo, or for its next bytes: one epoll_ctl per change,
    // none while echoes leave as they are made.
    const std::uint32_t want = c.tx.empty() ? EPOLLIN : EPOLLOUT;
    if (keep && want != c.interest) {
      epoll_event ev{};
      ev.events = want;
      ev.data.ptr = &c;
      keep = epoll_ctl(epoll.get(), EPOLL_CTL_MOD, c.fd.get(), &ev) == 0;
      c.interest = want;
    }
    return keep;
  }

  // Closes every connection past its deadline, and learns the next one.
  void sweep(Clock::time_point now) {
    next_sweep = Clock::time_point::max();
    for (auto it = connections.begin(); it != connections.end();) {
      if (now < it->deadline && now < it->frame_deadline) {
        next_sweep = std::min({next_sweep, it->deadline, it->frame_deadline});
        ++it;
        continue;
      }
      if (!it->established) {
        refuse_log(it->peer, {AcceptStatus::bad_hello, "no complete hello in time"});
      }
      close(it++);
    }
  }

  void poll_once(std::chrono::milliseconds max_wait) override {
    const auto wake = std::min(Clock::now() + max_wait, next_sweep);
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(wake - Clock::now());
    std::array<epoll_event, 256> events{};
    const int n = ::epoll_wait(epoll.get(), events.data(), static_cast<int>(events.size()),
                               static_cast<int>(std::clamp<long long>(wait.count() + 1, 0, 1000)));
    if (n < 0) return;  // EINTR: the caller loops
    bool listener_ready = false;
    for (int i = 0; i < n; ++i) {
      if (events[i].data.ptr == nullptr) {
        listener_ready = true;
        continue;
      }
      // Each connection has at most one event per batch, and only its own event closes it.
      auto* c = static_cast<Connection*>(events[i].data.ptr);
      if (!on_event(*c, events[i].events)) close(c->self);
    }
    const auto now = Clock::now();
    if (now >= next_sweep) sweep(now);
    if (listener_ready) accept_new();
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
  impl->epoll = UniqueFd(::epoll_create1(EPOLL_CLOEXEC));
  if (!impl->epoll) return errno_error(errno, "epoll_create1");
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = nullptr;  // the listener
  if (epoll_ctl(impl->epoll.get(), EPOLL_CTL_ADD, fd.get(), &ev) != 0) {
    return errno_error(errno, "epoll_ctl listener");
  }
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
