#include "probes/peer_buckets.h"

#include <algorithm>

namespace rdmatop::probes {

PeerBuckets::PeerBuckets(double per_second, std::uint32_t burst, std::size_t max_peers)
    : per_second_(per_second), burst_(burst), max_peers_(std::max<std::size_t>(1, max_peers)) {}

double PeerBuckets::tokens_at(const Bucket& bucket, TimePoint now) const {
  const std::chrono::duration<double> elapsed = now - bucket.last;
  return std::min(static_cast<double>(burst_),
                  bucket.tokens + std::max(0.0, elapsed.count()) * per_second_);
}

void PeerBuckets::make_room(TimePoint now) {
  // A bucket that has refilled completely carries no information: drop all of those first.
  std::erase_if(buckets_, [&](const auto& entry) {
    return tokens_at(entry.second, now) >= static_cast<double>(burst_);
  });
  if (buckets_.size() < max_peers_) return;
  // Still full: drop the fullest bucket, the oldest of equals. O(table) per new address while
  // the table is full (4096 comparisons, no allocation).
  auto victim = buckets_.begin();
  double victim_tokens = tokens_at(victim->second, now);
  for (auto it = std::next(buckets_.begin()); it != buckets_.end(); ++it) {
    const double tokens = tokens_at(it->second, now);
    if (tokens > victim_tokens ||
        (tokens == victim_tokens && it->second.last < victim->second.last)) {
      victim = it;
      victim_tokens = tokens;
    }
  }
  buckets_.erase(victim);
}

bool PeerBuckets::take(const PeerAddress& peer, TimePoint now) {
  auto it = buckets_.find(peer);
  if (it == buckets_.end()) {
    if (buckets_.size() >= max_peers_) make_room(now);
    it = buckets_.emplace(peer, Bucket{static_cast<double>(burst_), now}).first;
  }
  Bucket& bucket = it->second;
  if (now > bucket.last) {
    bucket.tokens = tokens_at(bucket, now);
    bucket.last = now;
  }
  if (bucket.tokens < 1.0) return false;
  bucket.tokens -= 1.0;
  return true;
}

bool PeerBuckets::has_token(const PeerAddress& peer, TimePoint now) const {
  const auto it = buckets_.find(peer);
  return it == buckets_.end() || tokens_at(it->second, now) >= 1.0;
}

}  // namespace rdmatop::probes
