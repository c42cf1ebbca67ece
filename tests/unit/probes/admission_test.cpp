#include "probes/admission.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <array>
#include <catch2/catch.hpp>

namespace rdmatop::probes {
namespace {

using namespace std::chrono_literals;
using TimePoint = Admission::TimePoint;

PeerAddress addr(const char* text) {
  auto parsed = parse_peer_address(text);
  REQUIRE(parsed.ok());
  return *parsed;
}

constexpr std::array<TransportKind, 1> kTcpOnly{TransportKind::tcp};
constexpr std::array<TransportKind, 2> kRcKinds{TransportKind::rc_send, TransportKind::rc_write};
constexpr std::uint64_t kNow = 1'796'000'000;

Hello proven_hello(TransportKind kind, const std::string& secret, std::uint8_t nonce_seed,
                   std::uint64_t unix_seconds = kNow) {
  Hello hello;
  hello.kind = kind;
  hello.max_payload = 4096;
  hello.unix_seconds = unix_seconds;
  hello.nonce.fill(nonce_seed);
  auto decoded = decode_hello(encode_hello(hello, secret), Padding::exact);
  REQUIRE(decoded.ok());
  return *decoded;
}

}  // namespace

TEST_CASE("peer addresses parse and print, IPv4 mapped into IPv6", "[probes][admission]") {
  CHECK(to_string(addr("10.0.0.2")) == "10.0.0.2");
  CHECK(to_string(addr("fe80::1")) == "fe80::1");
  CHECK(addr("10.0.0.2") == addr("::ffff:10.0.0.2"));
  for (const char* bad : {"", "10.0.0", "10.0.0.256", "host", "10.0.0.1/24", "fe80::1%eth0",
                          "1.2.3.4 ", "\xff\xfe"}) {
    CAPTURE(bad);
    const auto parsed = parse_peer_address(bad);
    REQUIRE_FALSE(parsed.ok());
    CHECK_THAT(parsed.error().message, Catch::Contains("not an IPv4 or IPv6 address"));
  }
  sockaddr_in in{};
  in.sin_family = AF_INET;
  inet_pton(AF_INET, "192.168.1.9", &in.sin_addr);
  const auto from_in = peer_address_from_sockaddr(reinterpret_cast<const sockaddr*>(&in));
  REQUIRE(from_in.ok());
  CHECK(to_string(*from_in) == "192.168.1.9");
  sockaddr_in6 in6{};
  in6.sin6_family = AF_INET6;
  inet_pton(AF_INET6, "2001:db8::5", &in6.sin6_addr);
  const auto from_in6 = peer_address_from_sockaddr(reinterpret_cast<const sockaddr*>(&in6));
  REQUIRE(from_in6.ok());
  CHECK(to_string(*from_in6) == "2001:db8::5");
  sockaddr unix_addr{};
  unix_addr.sa_family = AF_UNIX;
  CHECK_FALSE(peer_address_from_sockaddr(&unix_addr).ok());
  CHECK_FALSE(peer_address_from_sockaddr(nullptr).ok());
}

TEST_CASE("CIDRs parse strictly and match", "[probes][admission]") {
  struct Case {
    const char* cidr;
    const char* address;
    bool contained;
  };
  const Case cases[] = {
      {"10.0.0.0/24", "10.0.0.77", true},
      {"10.0.0.0/24", "10.0.1.1", false},
      {"10.0.0.0/8", "10.255.1.1", true},
      {"10.0.0.0/8", "11.0.0.1", false},
      {"10.0.0.5", "10.0.0.5", true},
      {"10.0.0.5", "10.0.0.6", false},
      {"0.0.0.0/0", "203.0.113.4", true},
      {"0.0.0.0/0", "2001:db8::1", false},
      {"10.0.0.128/25", "10.0.0.129", true},
      {"10.0.0.128/25", "10.0.0.127", false},
      {"fd00::/8", "fd12::1", true},
      {"fd00::/8", "fe80::1", false},
      {"::/0", "10.0.0.1", true},
      {"2001:db8::/127", "2001:db8::1", true},
  };
  for (const auto& c : cases) {
    CAPTURE(c.cidr, c.address);
    const auto cidr = parse_cidr(c.cidr);
    REQUIRE(cidr.ok());
    CHECK(cidr->contains(addr(c.address)) == c.contained);
  }
  for (const char* bad : {"", "/24", "10.0.0.0/", "10.0.0.0/33", "10.0.0.1/24", "fd00::/129",
                          "10.0.0.0/-1", "10.0.0.0/2x", "10.0.0.0/0008", "x/8"}) {
    CAPTURE(bad);
    const auto cidr = parse_cidr(bad);
    REQUIRE_FALSE(cidr.ok());
    CHECK_THAT(cidr.error().message, Catch::StartsWith("CIDR '"));
  }
}

TEST_CASE("the allowlist refuses peers outside it", "[probes][admission]") {
  ResponderLimits limits;
  limits.allow = {*parse_cidr("10.1.0.0/16"), *parse_cidr("fd00::/8")};
  Admission admission(limits);
  const TimePoint t0{};
  CHECK(admission.admit_peer(addr("10.1.2.3"), t0).accepted());
  CHECK(admission.admit_peer(addr("fd00::9"), t0).accepted());
  const auto refused = admission.admit_peer(addr("10.2.0.1"), t0);
  CHECK(refused.status == AcceptStatus::not_allowed);
  CHECK_THAT(refused.reason, Catch::Contains("allowlist"));
  // Without an allowlist everyone passes this step.
  Admission open(ResponderLimits{});
  CHECK(open.admit_peer(addr("10.2.0.1"), t0).accepted());
}

TEST_CASE("per-peer rate limit: burst, refill, other peers unaffected", "[probes][admission]") {
  ResponderLimits limits;
  limits.peer_burst = 3;
  limits.peer_connects_per_second = 1.0;
  Admission admission(limits);
  const TimePoint t0{};
  const auto a = addr("10.0.0.1");
  for (int i = 0; i < 3; ++i) CHECK(admission.admit_peer(a, t0).accepted());
  const auto limited = admission.admit_peer(a, t0);
  CHECK(limited.status == AcceptStatus::rate_limited);
  CHECK_THAT(limited.reason, Catch::Contains("more than 3 connection attempts"));
  CHECK(admission.admit_peer(addr("10.0.0.2"), t0).accepted());
  // Half a token is not enough; a full second later one attempt passes, the next does not.
  CHECK(admission.admit_peer(a, t0 + 500ms).status == AcceptStatus::rate_limited);
  CHECK(admission.admit_peer(a, t0 + 1000ms).accepted());
  CHECK(admission.admit_peer(a, t0 + 1000ms).status == AcceptStatus::rate_limited);
  // Tokens never exceed the burst, however long the peer was away.
  const TimePoint later = t0 + 1h;
  for (int i = 0; i < 3; ++i) CHECK(admission.admit_peer(a, later).accepted());
  CHECK(admission.admit_peer(a, later).status == AcceptStatus::rate_limited);
}

TEST_CASE("many distinct peers cannot grow the bucket table without bound", "[probes][admission]") {
  ResponderLimits limits;
  limits.peer_burst = 2;
  limits.peer_connects_per_second = 1.0;
  Admission admission(limits);
  const TimePoint t0{};
  // One address spends its burst first: it must stay limited however many others come.
  const auto greedy = addr("10.9.9.9");
  CHECK(admission.admit_peer(greedy, t0).accepted());
  CHECK(admission.admit_peer(greedy, t0).accepted());
  std::size_t accepted = 0;
  for (std::uint32_t i = 0; i < 5000; ++i) {
    PeerAddress p{};
    p[0] = 0x20;
    p[12] = static_cast<std::uint8_t>(i >> 8);
    p[13] = static_cast<std::uint8_t>(i);
    if (admission.admit_peer(p, t0).accepted()) ++accepted;
    CHECK(admission.tracked_peers() <= Admission::kMaxTrackedPeers);
  }
  // Before #22 the 4,097th distinct address and every later one were refused until entries
  // aged out, so 4,096 addresses could lock everyone else out: now each new one gets a bucket.
  CHECK(accepted == 5000);
  PeerAddress fresh{};
  fresh[0] = 0x30;
  CHECK(admission.admit_peer(fresh, t0).accepted());
  CHECK(admission.admit_peer(greedy, t0).status == AcceptStatus::rate_limited);
}

TEST_CASE("one address gets its share of the connection cap, not all of it",
          "[probes][admission]") {
  ResponderLimits limits;
  limits.max_connections = 8;
  limits.max_connections_per_peer = 3;
  Admission admission(limits);
  const auto holder = addr("10.0.0.1");
  const auto other = addr("10.0.0.2");
  for (int i = 0; i < 3; ++i) CHECK(admission.reserve(holder, 10).accepted());
  const auto share = admission.reserve(holder, 10);
  CHECK(share.status == AcceptStatus::busy);
  CHECK_THAT(share.reason, Catch::Contains("per-address connection cap 3"));
  CHECK(admission.reserve(other, 10).accepted());
  admission.release(holder, 10);
  CHECK(admission.reserve(holder, 10).accepted());
  CHECK(admission.connections() == 4);
  // A release of an address holding nothing changes nothing.
  admission.release(addr("10.0.0.3"), 10);
  CHECK(admission.connections() == 4);
  CHECK(admission.reserved_bytes() == 40);
}

TEST_CASE("hello checks: kind, payload limit", "[probes][admission]") {
  ResponderLimits limits;
  limits.max_payload = 4096;
  Admission admission(limits);
  const TimePoint t0{};
  Hello hello = proven_hello(TransportKind::tcp, "", 1);
  CHECK(admission.check_hello(hello, kTcpOnly, kNow, t0).accepted());
  const auto wrong_kind = admission.check_hello(hello, kRcKinds, kNow, t0);
  CHECK(wrong_kind.status == AcceptStatus::unsupported);
  CHECK_THAT(wrong_kind.reason, Catch::Contains("tcp not served"));
  hello.max_payload = 4097;
  const auto big = admission.check_hello(hello, kTcpOnly, kNow, t0);
  CHECK(big.status == AcceptStatus::payload_too_large);
  CHECK_THAT(big.reason, Catch::Contains("4097 above the limit 4096"));
}

TEST_CASE("shared secret: missing, wrong, stale and replayed proofs are refused",
          "[probes][admission]") {
  ResponderLimits limits;
  limits.shared_secret = "topsecret";
  limits.max_clock_skew = 60s;
  Admission admission(limits);
  const TimePoint t0{};
  auto status = [&](const Hello& h, TimePoint t = TimePoint{}) {
    return admission.check_hello(h, kRcKinds, kNow, t).status;
  };
  CHECK(status(proven_hello(TransportKind::rc_send, "", 1)) == AcceptStatus::auth_failed);
  CHECK(status(proven_hello(TransportKind::rc_send, "wrong", 2)) == AcceptStatus::auth_failed);
  CHECK(status(proven_hello(TransportKind::rc_send, "topsecret", 3, kNow - 61)) ==
        AcceptStatus::auth_failed);
  CHECK(status(proven_hello(TransportKind::rc_send, "topsecret", 4, kNow + 61)) ==
        AcceptStatus::auth_failed);
  const Hello good = proven_hello(TransportKind::rc_send, "topsecret", 5, kNow - 60);
  CHECK(status(good, t0) == AcceptStatus::accepted);
  const auto replay = admission.check_hello(good, kRcKinds, kNow, t0 + 1s);
  CHECK(replay.status == AcceptStatus::auth_failed);
  CHECK_THAT(replay.reason, Catch::Contains("replayed"));
  CHECK(status(proven_hello(TransportKind::rc_write, "topsecret", 6), t0) ==
        AcceptStatus::accepted);
  // After the freshness window the nonce is forgotten (and a replay would be stale anyway).
  CHECK(admission.check_hello(good, kRcKinds, kNow - 60, t0 + 121s).accepted());
}

TEST_CASE("connection and memory caps; release gives both back", "[probes][admission]") {
  ResponderLimits limits;
  limits.max_connections = 2;
  limits.max_registered_bytes = 10000;
  Admission admission(limits);
  const auto p = addr("10.0.0.1");
  CHECK(admission.reserve(p, 4000).accepted());
  const auto memory = admission.reserve(p, 6001);
  CHECK(memory.status == AcceptStatus::busy);
  CHECK_THAT(memory.reason, Catch::Contains("memory cap 10000"));
  CHECK(admission.reserve(p, 6000).accepted());
  CHECK(admission.connections() == 2);
  CHECK(admission.reserved_bytes() == 10000);
  const auto full = admission.reserve(addr("10.0.0.2"), 0);
  CHECK(full.status == AcceptStatus::busy);
  CHECK_THAT(full.reason, Catch::Contains("connection cap 2"));
  admission.release(p, 4000);
  CHECK(admission.connections() == 1);
  CHECK(admission.reserved_bytes() == 6000);
  CHECK(admission.reserve(p, 4000).accepted());
  admission.release(p, 4000);
  admission.release(p, 6000);
  admission.release(p, 6000);  // an extra release never underflows
  CHECK(admission.connections() == 0);
  CHECK(admission.reserved_bytes() == 0);
}

TEST_CASE("resize moves a reservation within the memory cap", "[probes][admission]") {
  ResponderLimits limits;
  limits.max_connections = 4;
  limits.max_registered_bytes = 1000;
  Admission admission(limits);
  REQUIRE(admission.reserve(addr("10.0.0.1"), 56).accepted());
  REQUIRE(admission.reserve(addr("10.0.0.2"), 56).accepted());
  CHECK(admission.resize(56, 900).accepted());
  CHECK(admission.reserved_bytes() == 956);
  CHECK(admission.resize(56, 101).status == AcceptStatus::busy);  // 900 + 101 > 1000
  const auto refused = admission.resize(56, 200);
  CHECK(refused.status == AcceptStatus::busy);
  CHECK(admission.reserved_bytes() == 956);  // the old reservation stays
  CHECK(admission.connections() == 2);       // resizing never takes or frees a slot
  CHECK(admission.resize(900, 10).accepted());
  CHECK(admission.reserved_bytes() == 66);
}

TEST_CASE("refusal logging is rate-limited per peer and status", "[probes][admission]") {
  Admission admission(ResponderLimits{});
  const TimePoint t0{};
  const auto a = addr("10.0.0.1");
  constexpr auto busy = AcceptStatus::busy;
  CHECK(admission.should_log_refusal(a, busy, t0));
  CHECK_FALSE(admission.should_log_refusal(a, busy, t0 + 1s));
  CHECK(admission.should_log_refusal(a, AcceptStatus::bad_hello, t0 + 1s));
  CHECK(admission.should_log_refusal(addr("10.0.0.2"), busy, t0 + 1s));
  CHECK_FALSE(admission.should_log_refusal(a, busy, t0 + 9s));
  CHECK_FALSE(admission.should_log_refusal(a, AcceptStatus::bad_hello, t0 + 9s));
  CHECK(admission.should_log_refusal(a, busy, t0 + 10s));
}

}  // namespace rdmatop::probes
