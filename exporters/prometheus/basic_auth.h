// Basic auth for /metrics without the amplification of #22 (a wrong password cost ~54 ms of
// bcrypt on one of civetweb's two threads, unthrottled, and an unknown user answered in 0.35 ms,
// a user-name oracle):
//   * verified credentials are cached, keyed by an HMAC-SHA256 of user and password under a
//     per-process random key (the secret itself is not kept); a cached scrape costs no bcrypt;
//   * an unknown user costs a bcrypt of the same cost as the configured hashes (the
//     exporter-toolkit does the same, prometheus/exporter-toolkit web/handler.go);
//   * bcrypt runs on a worker thread of its own, never on the HTTP loop, with a bounded queue;
//   * each client address has a token bucket of bcrypt checks (peer_buckets.h): a flood of wrong
//     passwords from one address is answered 429 without bcrypt, and never delays a scraper
//     whose credentials are cached.
#pragma once

#include <array>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "probes/peer_buckets.h"

namespace rdmatop {

struct BasicAuthOptions {
  std::map<std::string, std::string> users;  ///< user -> bcrypt hash
  std::size_t workers = 1;                   ///< bcrypt threads (one core at most by default)
  std::size_t max_pending = 32;              ///< bcrypt checks queued; more: busy
  double checks_per_second = 1.0;            ///< per client address, after the burst
  std::uint32_t check_burst = 10;
  std::size_t max_cached = 64;  ///< verified credentials remembered
};

enum class AuthVerdict {
  allowed,
  denied,     ///< no, malformed or wrong credentials: 401
  throttled,  ///< this address spent its bcrypt checks: 429
  busy,       ///< the bcrypt queue is full: 503
};

class BasicAuth {
 public:
  using Done = std::function<void(AuthVerdict)>;

  explicit BasicAuth(BasicAuthOptions options);
  ~BasicAuth();  ///< joins the workers; checks still queued are dropped unanswered
  BasicAuth(const BasicAuth&) = delete;
  BasicAuth& operator=(const BasicAuth&) = delete;

  /// Judges an Authorization header value from `client`. `done` is called exactly once: at once
  /// when no bcrypt is needed (cached, malformed, throttled, busy), else from a worker.
  void check(std::string_view authorization, const probes::PeerAddress& client, Done done);

  struct Stats {
    std::uint64_t cache_hits = 0, bcrypt_checks = 0, denied = 0, throttled = 0, busy = 0;
  };
  Stats stats() const;

 private:
  using Key = std::array<std::uint8_t, 32>;
  struct Job {
    std::string user, password;
    Key key{};
    Done done;
  };
  Key key_of(std::string_view user, std::string_view password) const;
  void work();

  BasicAuthOptions options_;
  std::string unknown_user_hash_;  ///< a bcrypt setting of the configured cost, matching nothing
  std::array<std::uint8_t, 32> hmac_key_{};

  mutable std::mutex mutex_;  // guards everything below
  std::condition_variable ready_;
  std::deque<Job> queue_;
  std::set<Key> verified_;
  probes::PeerBuckets checks_;
  Stats stats_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace rdmatop
