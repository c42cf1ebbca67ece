// Per-address token buckets in a table of bounded size: the rate limit of the responder's
// connection attempts (admission.h) and of the exporter's failed logins (basic_auth.h). Pure:
// the clock is passed in. A full table never refuses a new address: it forgets the bucket that
// carries least information (the fullest, of those the one unused longest), so N addresses
// cannot lock out address N+1, and an address that spent its tokens stays limited.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>

namespace rdmatop::probes {

/// An IPv6 address; IPv4 peers are kept IPv4-mapped (::ffff:a.b.c.d), so one type covers both.
using PeerAddress = std::array<std::uint8_t, 16>;

class PeerBuckets {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  /// `burst` tokens at once, refilled at `per_second`; at most `max_peers` buckets.
  PeerBuckets(double per_second, std::uint32_t burst, std::size_t max_peers);

  /// Spends one of `peer`'s tokens; false (and nothing spent) when it has less than one.
  bool take(const PeerAddress& peer, TimePoint now);
  /// Whether `peer` has a token now, without spending it.
  bool has_token(const PeerAddress& peer, TimePoint now) const;

  std::size_t size() const { return buckets_.size(); }
  std::size_t max_peers() const { return max_peers_; }

 private:
  struct Bucket {
    double tokens = 0;
    TimePoint last{};
  };
  double tokens_at(const Bucket& bucket, TimePoint now) const;
  void make_room(TimePoint now);

  double per_second_;
  std::uint32_t burst_;
  std::size_t max_peers_;
  std::map<PeerAddress, Bucket> buckets_;
};

}  // namespace rdmatop::probes
