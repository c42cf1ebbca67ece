// The TCP prober against the TCP responder over loopback: echo, timeouts, hostile input and caps.
// Real sockets, no RDMA. Timeouts here are generous upper bounds, never asserted durations.
#include "probes/tcp_responder.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <mutex>
#include <thread>
#include <vector>

#include "probes/handshake.h"
#include "probes/tcp_socket.h"
#include "probes/transport.h"

namespace rdmatop::probes {
namespace {

using namespace std::chrono_literals;

class RunningResponder {
 public:
  explicit RunningResponder(ResponderLimits limits) {
    auto responder =
        TcpResponder::listen("127.0.0.1", 0, std::move(limits), [this](const std::string& line) {
          std::lock_guard lock(mutex_);
          log_.push_back(line);
        });
    REQUIRE(responder.ok());
    responder_ = std::move(responder.value());
    thread_ = std::thread([this] { responder_->run(stop_); });
  }
  ~RunningResponder() {
    stop_ = true;
    thread_.join();
  }
  Endpoint endpoint() const { return {"127.0.0.1", responder_->port()}; }
  ResponderStats stats() const { return responder_->stats(); }
  std::vector<std::string> log() {
    std::lock_guard lock(mutex_);
    return log_;
  }
  // The log line is written after the refusal is sent: wait (bounded) for `count` lines.
  std::vector<std::string> log_after(std::size_t count) {
    for (int i = 0; i < 500 && log().size() < count; ++i) std::this_thread::sleep_for(10ms);
    return log();
  }
  // Waits (bounded) until `pred(stats())` holds; returns whether it did.
  template <class Pred>
  bool eventually(Pred pred) {
    for (int i = 0; i < 500; ++i) {
      if (pred(stats())) return true;
      std::this_thread::sleep_for(10ms);
    }
    return pred(stats());
  }

 private:
  std::unique_ptr<TcpResponder> responder_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mutex_;
  std::vector<std::string> log_;
};

UniqueFd raw_connect(std::uint16_t port, const char* source = nullptr) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  REQUIRE(fd);
  if (source != nullptr) {  // any 127.0.0.0/8 address is the loopback's (RFC 1122, 3.2.1.3)
    sockaddr_in local{};
    local.sin_family = AF_INET;
    REQUIRE(::inet_pton(AF_INET, source, &local.sin_addr) == 1);
    REQUIRE(::bind(fd.get(), reinterpret_cast<sockaddr*>(&local), sizeof(local)) == 0);
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  return fd;
}

// Reads until EOF or 5 s; returns the bytes received before the responder closed.
std::vector<std::uint8_t> read_until_closed(int fd) {
  std::vector<std::uint8_t> got;
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  std::array<std::uint8_t, 256> buf{};
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::recv(fd, buf.data(), buf.size(), 0);
    if (n <= 0) return got;
    got.insert(got.end(), buf.begin(), buf.begin() + n);
  }
  FAIL("responder did not close the connection within 5 s");
  return got;
}

// Connects and completes the handshake by hand; returns the established socket.
UniqueFd raw_handshake(std::uint16_t port, std::uint32_t max_payload) {
  UniqueFd fd = raw_connect(port);
  const Hello hello = make_hello(TransportKind::tcp, max_payload);
  const auto bytes = encode_hello(hello, "");
  REQUIRE(::send(fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(bytes.size()));
  AcceptBytes accept{};
  REQUIRE_FALSE(recv_exact(fd.get(), accept, std::chrono::steady_clock::now() + 5s));
  REQUIRE(check_accept(accept, Padding::exact, hello, "").ok());
  return fd;
}

ProbeOptions tcp_options(std::size_t max_payload = 8192, std::string secret = "") {
  ProbeOptions options;
  options.kind = TransportKind::tcp;
  options.max_payload = max_payload;
  options.shared_secret = std::move(secret);
  return options;
}

/// A listening socket on a free loopback port, for a peer the test plays itself.
struct LoopbackListener {
  UniqueFd fd;
  Endpoint endpoint;
};

LoopbackListener loopback_listener() {
  UniqueFd listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  REQUIRE(listener);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  REQUIRE(::listen(listener.get(), 4) == 0);
  socklen_t len = sizeof(addr);
  REQUIRE(::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  return {std::move(listener), Endpoint{"127.0.0.1", ntohs(addr.sin_port)}};
}

/// The responder's side of the handshake, played by hand on the next connection `listener`
/// accepts (called from the peer's thread, so it fails by returning an empty descriptor).
UniqueFd accept_handshake(int listener, std::chrono::steady_clock::time_point deadline) {
  UniqueFd peer(::accept(listener, nullptr, nullptr));
  std::array<std::uint8_t, kHelloSize> hello_bytes{};
  if (recv_exact(peer.get(), hello_bytes, deadline)) return {};
  const auto hello = decode_hello(hello_bytes, Padding::exact);
  if (!hello) return {};
  Accept accept;
  accept.max_payload = hello->max_payload;
  if (send_all(peer.get(), encode_accept(accept, hello->nonce, ""), deadline)) return {};
  return peer;
}

}  // namespace

TEST_CASE("tcp prober pings the tcp responder over loopback", "[probes][tcp]") {
  RunningResponder responder(ResponderLimits{});
  auto transport = make_tcp_transport(tcp_options());
  REQUIRE_FALSE(transport->connected());
  CHECK(transport->ping(10, 1s).outcome == PingResult::Outcome::not_connected);
  const auto err = transport->connect(responder.endpoint(), 5s);
  REQUIRE_FALSE(err.has_value());
  REQUIRE(transport->connected());
  CHECK(transport->local_device().empty());
  CHECK_FALSE(transport->qp_num().has_value());
  for (const std::size_t size : {0UL, 1UL, 1024UL, 4096UL, 8192UL}) {
    CAPTURE(size);
    const PingResult result = transport->ping(size, 5s);
    CHECK(result.outcome == PingResult::Outcome::answered);
    CHECK(result.rtt.count() > 0);
    CHECK(result.error.empty());
  }
  const PingResult too_big = transport->ping(8193, 5s);
  CHECK(too_big.outcome == PingResult::Outcome::qp_error);
  CHECK_THAT(too_big.error, Catch::Contains("above max_payload"));
  CHECK(responder.eventually([](const ResponderStats& s) { return s.echoed == 5; }));
  CHECK(responder.stats().accepted == 1);
  transport->disconnect();
  CHECK_FALSE(transport->connected());
  CHECK(responder.eventually([](const ResponderStats& s) { return s.active == 0; }));
}

TEST_CASE("tcp prober with a shared secret", "[probes][tcp]") {
  ResponderLimits limits;
  limits.shared_secret = "hunter2";
  RunningResponder responder(limits);
  auto good = make_tcp_transport(tcp_options(1024, "hunter2"));
  REQUIRE_FALSE(good->connect(responder.endpoint(), 5s).has_value());
  CHECK(good->ping(100, 5s).outcome == PingResult::Outcome::answered);
  for (const std::string secret : {"", "hunter3"}) {
    auto bad = make_tcp_transport(tcp_options(1024, secret));
    const auto err = bad->connect(responder.endpoint(), 5s);
    REQUIRE(err.has_value());
    CHECK(err->message == "handshake: refused: authentication failed");
    CHECK_FALSE(bad->connected());
  }
  // The prober also insists that the responder proves the secret.
  RunningResponder open_responder(ResponderLimits{});
  auto insisting = make_tcp_transport(tcp_options(1024, "hunter2"));
  const auto err = insisting->connect(open_responder.endpoint(), 5s);
  REQUIRE(err.has_value());
  CHECK_THAT(err->message, Catch::Contains("did not prove the shared secret"));
  // Two refusals of one peer within 10 s: one line.
  CHECK(responder.eventually([](const ResponderStats& s) { return s.refused == 2; }));
  CHECK(responder.log_after(1).size() == 1);
}

TEST_CASE("tcp responder refuses oversized payloads and caps connections", "[probes][tcp]") {
  ResponderLimits limits;
  limits.max_payload = 4096;
  limits.max_connections = 2;
  RunningResponder responder(limits);
  auto greedy = make_tcp_transport(tcp_options(4097));
  const auto err = greedy->connect(responder.endpoint(), 5s);
  REQUIRE(err.has_value());
  CHECK(err->message == "handshake: refused: payload too large");

  // Two silent peers hold both slots; the third is refused with a reason, not left hanging.
  UniqueFd a = raw_connect(responder.endpoint().port);
  UniqueFd b = raw_connect(responder.endpoint().port);
  REQUIRE(responder.eventually([](const ResponderStats& s) { return s.active == 2; }));
  auto third = make_tcp_transport(tcp_options(1024));
  const auto busy = third->connect(responder.endpoint(), 5s);
  REQUIRE(busy.has_value());
  CHECK(busy->message == "handshake: refused: responder busy (connection or memory cap)");
  a.reset();
  REQUIRE(responder.eventually([](const ResponderStats& s) { return s.active == 1; }));
  REQUIRE_FALSE(third->connect(responder.endpoint(), 5s).has_value());
  CHECK(third->ping(64, 5s).outcome == PingResult::Outcome::answered);
}

TEST_CASE("tcp responder rate-limits one peer's connection attempts", "[probes][tcp]") {
  ResponderLimits limits;
  limits.peer_burst = 3;
  limits.peer_connects_per_second = 0.01;  // no refill within the test
  RunningResponder responder(limits);
  for (int i = 0; i < 3; ++i) {
    auto t = make_tcp_transport(tcp_options(64));
    REQUIRE_FALSE(t->connect(responder.endpoint(), 5s).has_value());
  }
  auto fourth = make_tcp_transport(tcp_options(64));
  const auto err = fourth->connect(responder.endpoint(), 5s);
  REQUIRE(err.has_value());
  CHECK(err->message == "handshake: refused: rate limited");
  const auto log = responder.log_after(1);
  REQUIRE(log.size() == 1);
  CHECK_THAT(log[0], Catch::StartsWith("refused tcp peer 127.0.0.1: rate limited"));
}

TEST_CASE("tcp responder survives garbage, truncation and silence", "[probes][tcp]") {
  ResponderLimits limits;
  limits.handshake_timeout = 300ms;
  limits.peer_burst = 100;
  RunningResponder responder(limits);
  const auto port = responder.endpoint().port;

  SECTION("garbage instead of a hello gets a bad-hello refusal and a close") {
    UniqueFd fd = raw_connect(port);
    std::vector<std::uint8_t> garbage(kHelloSize + 100, 0xa5);
    REQUIRE(::send(fd.get(), garbage.data(), garbage.size(), MSG_NOSIGNAL) > 0);
    const auto reply = read_until_closed(fd.get());
    const auto refusal = decode_accept(reply, Padding::exact);
    REQUIRE(refusal.ok());
    CHECK(refusal->status == AcceptStatus::bad_hello);
  }
  SECTION("a truncated hello is closed after the handshake timeout") {
    UniqueFd fd = raw_connect(port);
    const auto hello = encode_hello(make_hello(TransportKind::tcp, 64), "");
    REQUIRE(::send(fd.get(), hello.data(), 20, MSG_NOSIGNAL) == 20);
    CHECK(read_until_closed(fd.get()).empty());
  }
  SECTION("a silent peer is closed after the handshake timeout") {
    UniqueFd fd = raw_connect(port);
    CHECK(read_until_closed(fd.get()).empty());
  }
  SECTION("an rc hello on the tcp port is refused as unsupported") {
    UniqueFd fd = raw_connect(port);
    const auto hello = encode_hello(make_hello(TransportKind::rc_send, 64), "");
    REQUIRE(::send(fd.get(), hello.data(), hello.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(hello.size()));
    const auto refusal = decode_accept(read_until_closed(fd.get()), Padding::exact);
    REQUIRE(refusal.ok());
    CHECK(refusal->status == AcceptStatus::unsupported);
  }
  SECTION("a bad frame after a good handshake closes the connection") {
    UniqueFd fd = raw_connect(port);
    const Hello hello = make_hello(TransportKind::tcp, 64);
    const auto bytes = encode_hello(hello, "");
    REQUIRE(::send(fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL) > 0);
    AcceptBytes accept{};
    REQUIRE_FALSE(recv_exact(fd.get(), accept, std::chrono::steady_clock::now() + 5s));
    REQUIRE(check_accept(accept, Padding::exact, hello, "").ok());
    // Declares 65 payload bytes on a connection granted 64.
    const auto header = encode_frame_header({65, 1});
    REQUIRE(::send(fd.get(), header.data(), header.size(), MSG_NOSIGNAL) > 0);
    CHECK(read_until_closed(fd.get()).empty());
  }
  SECTION("a peer that vanishes mid-frame is cleaned up") {
    {
      UniqueFd fd = raw_connect(port);
      const auto bytes = encode_hello(make_hello(TransportKind::tcp, 64), "");
      REQUIRE(::send(fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL) > 0);
      const auto header = encode_frame_header({64, 1});
      REQUIRE(::send(fd.get(), header.data(), header.size(), MSG_NOSIGNAL) > 0);
    }
    CHECK(responder.eventually(
        [](const ResponderStats& s) { return s.accepted == 1 && s.active == 0; }));
  }
  // Whatever happened before, a good prober is served.
  auto good = make_tcp_transport(tcp_options(64));
  REQUIRE_FALSE(good->connect(responder.endpoint(), 5s).has_value());
  CHECK(good->ping(64, 5s).outcome == PingResult::Outcome::answered);
}

// #22: the first ping had the 2 s handshake deadline although docs/probe-protocol.md gives
// every ping the idle timeout (120 s); a prober that waited longer than 2 s was cut off.
TEST_CASE("tcp responder gives the first ping the idle timeout, not the handshake's",
          "[probes][tcp]") {
  ResponderLimits limits;
  limits.handshake_timeout = 200ms;
  RunningResponder responder(limits);
  auto transport = make_tcp_transport(tcp_options(64));
  REQUIRE_FALSE(transport->connect(responder.endpoint(), 5s).has_value());
  std::this_thread::sleep_for(1s);  // five handshake timeouts, far below the idle timeout
  CHECK(transport->ping(64, 5s).outcome == PingResult::Outcome::answered);
  CHECK(responder.stats().active == 1);
}

// #22: any byte used to restart the idle deadline, so one byte every few seconds of a frame
// never finished held a slot forever. A frame is now due frame_timeout after its first byte.
TEST_CASE("tcp responder closes a connection that trickles an unfinished frame", "[probes][tcp]") {
  ResponderLimits limits;  // frame_timeout 2 s
  RunningResponder responder(limits);
  UniqueFd fd = raw_handshake(responder.endpoint().port, 64);
  std::vector<std::uint8_t> frame(kFrameHeaderSize + 64, 0x5a);
  const auto header = encode_frame_header({64, 1});
  std::copy(header.begin(), header.end(), frame.begin());
  // One byte per 250 ms would take 20 s for the whole frame; the responder must close first.
  std::size_t sent = 0;
  bool closed = false;
  while (sent + 1 < frame.size() && !closed) {
    if (::send(fd.get(), &frame[sent], 1, MSG_NOSIGNAL) != 1) break;
    ++sent;
    pollfd p{fd.get(), POLLIN, 0};
    if (::poll(&p, 1, 250) > 0) {
      std::uint8_t byte = 0;
      closed = ::recv(fd.get(), &byte, 1, 0) <= 0;
    }
  }
  CAPTURE(sent);
  CHECK(closed);
  CHECK(sent + 1 < frame.size());
  CHECK(responder.eventually([](const ResponderStats& s) { return s.active == 0; }));
}

// The responder looks at its connections' deadlines only once the earliest is due (not on every
// wake-up): a frame's deadline, set when its first byte comes, must move that moment earlier
// even when every other deadline of the connection is far away.
TEST_CASE("tcp responder closes a stalled frame at its frame timeout, not at a later deadline",
          "[probes][tcp]") {
  ResponderLimits limits;
  limits.handshake_timeout = 30s;
  limits.frame_timeout = 300ms;
  RunningResponder responder(limits);
  UniqueFd fd = raw_handshake(responder.endpoint().port, 64);
  const auto header = encode_frame_header({64, 1});
  REQUIRE(::send(fd.get(), header.data(), 5, MSG_NOSIGNAL) == 5);  // part of a header, then no more
  CHECK(read_until_closed(fd.get()).empty());  // fails after 5 s: the handshake's 30 s are far
  CHECK(responder.eventually([](const ResponderStats& s) { return s.active == 0; }));
}

// #22: one address that held every slot (here with silent connections) locked out every other
// prober. It now gets max_connections_per_peer of them; 127.0.0.2 still gets in.
TEST_CASE("tcp responder keeps slots for other addresses when one holds many", "[probes][tcp]") {
  ResponderLimits limits;  // 64 connections, 16 per address
  limits.peer_burst = 200;
  limits.handshake_timeout = 30s;  // the holders stay for the whole test
  RunningResponder responder(limits);
  const auto port = responder.endpoint().port;
  std::vector<UniqueFd> holders;
  for (int i = 0; i < 64; ++i) holders.push_back(raw_connect(port));
  REQUIRE(responder.eventually([](const ResponderStats& s) { return s.active + s.refused >= 64; }));
  CHECK(responder.stats().active <= limits.max_connections_per_peer);
  ProbeOptions options = tcp_options(64);
  options.local_address = "127.0.0.2";
  auto other = make_tcp_transport(options);
  REQUIRE_FALSE(other->connect(responder.endpoint(), 5s).has_value());
  CHECK(other->ping(64, 5s).outcome == PingResult::Outcome::answered);
}

TEST_CASE("tcp prober times out instead of hanging", "[probes][tcp]") {
  // A listener that accepts (the kernel's backlog does it) but never speaks.
  auto [listener, mute] = loopback_listener();

  auto transport = make_tcp_transport(tcp_options(64));
  const auto err = transport->connect(mute, 200ms);
  REQUIRE(err.has_value());
  CHECK(err->code == ETIMEDOUT);
  CHECK(err->message == "handshake: timed out");

  SECTION("a ping whose echo never comes times out and keeps the connection") {
    // The first, unanswered connection attempt above is still queued: drop it first.
    { UniqueFd stale(::accept(listener.get(), nullptr, nullptr)); }
    std::thread fake([&] {
      const UniqueFd peer = accept_handshake(listener.get(), std::chrono::steady_clock::now() + 5s);
      if (!peer) return;
      std::array<std::uint8_t, 1> sink{};
      static_cast<void>(recv_exact(peer.get(), sink, std::chrono::steady_clock::now() + 5s));
      std::this_thread::sleep_for(500ms);  // hold the connection while the prober waits
    });
    auto t = make_tcp_transport(tcp_options(64));
    REQUIRE_FALSE(t->connect(mute, 5s).has_value());
    const PingResult result = t->ping(32, 100ms);
    CHECK(result.outcome == PingResult::Outcome::timed_out);
    CHECK(t->connected());
    fake.join();
  }
  SECTION("nothing listening: connect fails with the cause") {
    listener.reset();
    const auto refused = transport->connect(mute, 2s);
    REQUIRE(refused.has_value());
    CHECK_THAT(refused->message, Catch::Contains("Connection refused"));
  }
}

TEST_CASE("tcp prober skips the late echo of a timed-out ping, whole or in pieces",
          "[probes][tcp]") {
  const auto [listener, peer_at] = loopback_listener();
  const bool in_pieces = GENERATE(false, true);

  // A peer that holds the first ping's echo until the second ping has come, then sends both
  // echoes back to back: the first arrives while the prober waits for the second.
  std::thread peer([&] {
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    const UniqueFd fd = accept_handshake(listener.get(), deadline);
    if (!fd) return;
    std::vector<std::uint8_t> echoes;
    for (const std::size_t payload : {32, 1000}) {
      std::vector<std::uint8_t> frame(kFrameHeaderSize + payload);
      if (recv_exact(fd.get(), frame, deadline)) return;
      echoes.insert(echoes.end(), frame.begin(), frame.end());
    }
    if (!in_pieces) {
      static_cast<void>(send_all(fd.get(), echoes, deadline));
    } else {
      // Cut inside the stale echo's header, then inside the current echo's payload.
      const std::size_t cuts[] = {0, 7, kFrameHeaderSize + 32 + 300, echoes.size()};
      for (std::size_t i = 0; i + 1 < std::size(cuts); ++i) {
        const std::span<const std::uint8_t> piece(echoes.data() + cuts[i], cuts[i + 1] - cuts[i]);
        if (send_all(fd.get(), piece, deadline)) return;
        std::this_thread::sleep_for(20ms);
      }
    }
    std::array<std::uint8_t, 1> sink{};
    static_cast<void>(recv_exact(fd.get(), sink, deadline));  // until the prober hangs up
  });
  auto t = make_tcp_transport(tcp_options(1000));
  REQUIRE_FALSE(t->connect(peer_at, 5s).has_value());
  CHECK(t->ping(32, 100ms).outcome == PingResult::Outcome::timed_out);
  const PingResult second = t->ping(1000, 5s);
  CHECK(second.outcome == PingResult::Outcome::answered);
  CHECK(second.error.empty());
  CHECK(t->connected());
  t->disconnect();
  peer.join();
}

}  // namespace rdmatop::probes
