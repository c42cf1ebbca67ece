// Who may talk to a responder, and how much: the limits both responders (TCP and rdma_cm)
// enforce and the decisions they take. Pure: no I/O, the clock is passed in, so every decision is
// unit-tested. A responder is a network service on every host (issue #9, "Safety"): it caps
// connections and registered memory, rate-limits each peer, and optionally requires an allowlisted
// address and proof of a shared secret.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collector/model/result.h"
#include "probes/peer_buckets.h"
#include "probes/protocol.h"

struct sockaddr;

namespace rdmatop::probes {

/// Parses "10.0.0.2" or "fe80::1" (no zone, no port).
Result<PeerAddress> parse_peer_address(std::string_view text);
/// AF_INET / AF_INET6 sockaddr -> PeerAddress; an Error for any other family.
Result<PeerAddress> peer_address_from_sockaddr(const sockaddr* address);
/// "10.0.0.2" for mapped IPv4, else the compressed IPv6 text.
std::string to_string(const PeerAddress& address);

struct Cidr {
  PeerAddress network{};
  unsigned prefix_len = 0;  ///< over the 128-bit form: an IPv4 /24 is stored as /120

  bool contains(const PeerAddress& address) const;
  bool operator==(const Cidr&) const = default;
};

/// "10.0.0.0/24", "fd00::/8", or a bare address (a host route). Host bits must be zero.
Result<Cidr> parse_cidr(std::string_view text);

struct ResponderLimits {
  std::uint32_t max_connections = 64;  ///< live connections (= QPs on the RDMA listener)
  /// Live connections of one address: its share of `max_connections`, so one address (a flood
  /// or a slow holder) cannot take every slot from the other probers.
  std::uint32_t max_connections_per_peer = 16;
  std::uint32_t max_payload = 65536;  ///< largest ping payload granted
  /// Memory registered for all connections together (RDMA buffers) or held as socket buffers.
  std::uint64_t max_registered_bytes = 64ULL << 20;
  /// Per-peer token bucket for connection attempts: `peer_burst` at once, refilled at
  /// `peer_connects_per_second`.
  double peer_connects_per_second = 2.0;
  std::uint32_t peer_burst = 16;
  std::string shared_secret;  ///< non-empty: every hello must prove it
  std::vector<Cidr> allow;    ///< empty: any peer
  /// A proven hello older or newer than this (prober's wall clock) is refused as a replay.
  std::chrono::seconds max_clock_skew{120};
  /// A connection with no complete ping this long is closed, so idle peers cannot hold the
  /// slots. It counts from the accept (the first ping has the same time as every later one) and
  /// restarts with each complete frame only: bytes of an unfinished frame do not move it.
  std::chrono::seconds idle_timeout{120};
  /// The TCP listener gives a peer this long to send its whole hello.
  std::chrono::milliseconds handshake_timeout{2000};
  /// TCP: a frame whose first byte has arrived must be complete this long after it, and an echo
  /// must be taken by the peer within it, however the bytes trickle. With frames of at most
  /// 16 + max_payload bytes this is also the minimum data rate (32 KiB/s at the defaults).
  std::chrono::milliseconds frame_timeout{2000};
};

struct Decision {
  AcceptStatus status = AcceptStatus::accepted;
  std::string reason;  ///< for the refusal log line; empty when accepted

  bool accepted() const { return status == AcceptStatus::accepted; }
};

/// The state behind the decisions: per-peer buckets, the replay cache of proven hellos, and the
/// connection and memory accounting. Not thread-safe; each responder owns one and calls it from
/// its event loop.
class Admission {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  explicit Admission(ResponderLimits limits);

  /// First step for a new peer, before any of its bytes are read: allowlist, then rate limit
  /// (each attempt that passes spends one token).
  Decision admit_peer(const PeerAddress& peer, TimePoint now);
  /// Second step: the decoded hello. `served` lists the kinds this listener speaks.
  /// `now_unix_seconds` is the responder's wall clock, for the freshness of proven hellos.
  Decision check_hello(const Hello& hello, std::span<const TransportKind> served,
                       std::uint64_t now_unix_seconds, TimePoint now);
  /// Third step: take a connection slot (of the listener's and of `peer`'s share) and `bytes`
  /// of the memory budget; release() returns them when the connection ends.
  Decision reserve(const PeerAddress& peer, std::uint64_t bytes);
  void release(const PeerAddress& peer, std::uint64_t bytes);
  /// Changes a held reservation from `old_bytes` to `new_bytes` (same slot); on refusal the old
  /// reservation stays.
  Decision resize(std::uint64_t old_bytes, std::uint64_t new_bytes);

  /// Whether to log a refusal of `peer` with `status` now: at most one line per peer and status
  /// per 10 s, so a flood cannot fill the log yet each kind of trouble shows up.
  bool should_log_refusal(const PeerAddress& peer, AcceptStatus status, TimePoint now);

  std::uint32_t connections() const { return connections_; }
  /// Peers whose rate-limit bucket is remembered (at most kMaxTrackedPeers).
  std::size_t tracked_peers() const { return buckets_.size(); }
  static constexpr std::size_t kMaxTrackedPeers = 4096;
  std::uint64_t reserved_bytes() const { return reserved_bytes_; }
  const ResponderLimits& limits() const { return limits_; }

 private:
  void forget_logged(TimePoint now);

  ResponderLimits limits_;
  PeerBuckets buckets_;
  std::map<PeerAddress, std::uint32_t> peer_connections_;  ///< live connections per address
  std::map<std::pair<PeerAddress, AcceptStatus>, TimePoint> last_logged_;
  std::set<Nonce> seen_nonces_;
  std::deque<std::pair<TimePoint, Nonce>> nonce_order_;
  std::uint32_t connections_ = 0;
  std::uint64_t reserved_bytes_ = 0;
};

/// What a responder did so far, for tests and the responder's exit line.
struct ResponderStats {
  std::uint64_t accepted = 0;  ///< connections that completed the handshake
  std::uint64_t refused = 0;   ///< connections refused or dropped before the handshake completed
  std::uint64_t echoed = 0;    ///< pings answered
  std::uint32_t active = 0;    ///< connections open now
};

/// Receives one line per logged refusal ("refused tcp peer 10.0.0.9: rate limited (...)").
using ResponderLog = std::function<void(const std::string& line)>;

/// The counters behind ResponderStats: written by a responder's thread, read by any.
struct ResponderCounters {
  std::atomic<std::uint64_t> accepted{0}, refused{0}, echoed{0};
  std::atomic<std::uint32_t> active{0};

  ResponderStats snapshot() const;
};

/// Counts a refusal and logs it as "refused <listener> peer <address>: <status> (<reason>)",
/// unless the admission's log limit says not now.
void record_refusal(Admission& admission, ResponderCounters& counters, const ResponderLog& log,
                    std::string_view listener, const PeerAddress& peer, const Decision& decision);

}  // namespace rdmatop::probes
