// Basic auth without amplification (exporters/prometheus/basic_auth.h, #22 item 6). Counted,
// never timed: how many bcrypt checks each request cost, and the verdicts.
#include "exporters/prometheus/basic_auth.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <vector>

namespace rdmatop {
namespace {

// bcrypt of "right" at cost 4 (Python's crypt, libxcrypt): cheap enough for a unit test.
constexpr const char* kBcryptCost4Hash =
    "$2b$04$Gn1tp8bkY5nfhQdh.ohhQ.u2DjrJU7DS3.Rmv4iiey7eE8lqT5eJW";
// "Basic " + base64 of user:password.
constexpr const char* kRight = "Basic cHJvbTpyaWdodA==";    // prom:right
constexpr const char* kWrong = "Basic cHJvbTp3cm9uZw==";    // prom:wrong
constexpr const char* kUnknown = "Basic bm9ib2R5OnJpZ2h0";  // nobody:right

probes::PeerAddress client(std::uint8_t last) {
  probes::PeerAddress a{};
  a[10] = a[11] = 0xff;
  a[12] = 127;
  a[15] = last;
  return a;
}

/// Runs one check and waits for its verdict.
AuthVerdict verdict(BasicAuth& auth, const char* header, const probes::PeerAddress& from) {
  std::mutex m;
  std::condition_variable cv;
  std::optional<AuthVerdict> got;
  auth.check(header, from, [&](AuthVerdict v) {
    const std::lock_guard<std::mutex> lock(m);
    got = v;
    cv.notify_one();
  });
  std::unique_lock<std::mutex> lock(m);
  cv.wait(lock, [&] { return got.has_value(); });
  return *got;
}

BasicAuthOptions auth_options() {
  BasicAuthOptions o;
  o.users = {{"prom", kBcryptCost4Hash}};
  return o;
}

}  // namespace

TEST_CASE("basic auth: a verified password is cached, a wrong one is checked every time",
          "[exporter][auth]") {
  BasicAuth auth(auth_options());
  CHECK(verdict(auth, kRight, client(1)) == AuthVerdict::allowed);
  CHECK(auth.stats().bcrypt_checks == 1);
  for (int i = 0; i < 20; ++i) CHECK(verdict(auth, kRight, client(1)) == AuthVerdict::allowed);
  CHECK(auth.stats().bcrypt_checks == 1);  // all from the cache
  CHECK(auth.stats().cache_hits == 20);
  CHECK(verdict(auth, kWrong, client(1)) == AuthVerdict::denied);
  CHECK(verdict(auth, "Basic !!", client(1)) == AuthVerdict::denied);  // malformed: no bcrypt
  CHECK(verdict(auth, "", client(1)) == AuthVerdict::denied);
  CHECK(auth.stats().bcrypt_checks == 2);
}

// #22: an unknown user was refused without a bcrypt (0.35 ms against 54 ms), naming users.
TEST_CASE("basic auth: an unknown user costs the same bcrypt as a known one", "[exporter][auth]") {
  BasicAuth auth(auth_options());
  CHECK(verdict(auth, kUnknown, client(1)) == AuthVerdict::denied);
  CHECK(auth.stats().bcrypt_checks == 1);
  CHECK(verdict(auth, kWrong, client(1)) == AuthVerdict::denied);
  CHECK(auth.stats().bcrypt_checks == 2);
}

// #22: wrong passwords were checked without limit, each costing a bcrypt on an HTTP thread.
TEST_CASE("basic auth: failures are throttled per address; cached scrapes are not",
          "[exporter][auth]") {
  BasicAuthOptions o = auth_options();
  o.check_burst = 5;
  o.checks_per_second = 0.001;  // no refill within the test
  BasicAuth auth(o);
  CHECK(verdict(auth, kRight, client(2)) == AuthVerdict::allowed);  // spends one of client 2's
  int throttled = 0;
  for (int i = 0; i < 50; ++i) {
    if (verdict(auth, kWrong, client(1)) == AuthVerdict::throttled) ++throttled;
  }
  CHECK(throttled == 45);
  CHECK(auth.stats().bcrypt_checks == 6);  // 1 right + the burst of 5 wrong ones
  // The flood from .1 neither delays nor refuses the cached scraper at .2, nor a new address.
  CHECK(verdict(auth, kRight, client(2)) == AuthVerdict::allowed);
  CHECK(verdict(auth, kWrong, client(3)) == AuthVerdict::denied);
}

TEST_CASE("basic auth: a full bcrypt queue answers busy instead of queueing more",
          "[exporter][auth]") {
  BasicAuthOptions o = auth_options();
  o.max_pending = 2;
  o.check_burst = 1000;
  BasicAuth auth(o);
  std::mutex m;
  std::condition_variable cv;
  std::vector<AuthVerdict> got;
  const int n = 40;
  for (int i = 0; i < n; ++i) {
    auth.check(kWrong, client(1), [&](AuthVerdict v) {
      const std::lock_guard<std::mutex> lock(m);
      got.push_back(v);
      cv.notify_one();
    });
  }
  std::unique_lock<std::mutex> lock(m);
  cv.wait(lock, [&] { return got.size() == static_cast<std::size_t>(n); });
  const auto busy = std::count(got.begin(), got.end(), AuthVerdict::busy);
  CHECK(busy > 0);
  CHECK(busy + std::count(got.begin(), got.end(), AuthVerdict::denied) == n);
  CHECK(auth.stats().bcrypt_checks == static_cast<std::uint64_t>(n - busy));
}

}  // namespace rdmatop
