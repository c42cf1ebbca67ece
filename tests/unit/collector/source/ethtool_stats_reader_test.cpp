// The `ethtool -S` sequence over scripted kernel calls: name cache, string-set changes between
// the calls, bounded retries; and the decoding of the 32-byte GSTRINGS slots.
#include <catch2/catch.hpp>

#include <cerrno>
#include <deque>
#include <string>
#include <vector>

#include "collector/source/ethtool_stats_reader.h"

namespace rdmatop {
namespace {

/// A device whose string set is `names`; tests mutate it, or queue one-off answers that
/// simulate a reconfiguration landing between two calls.
class FakeCalls final : public EthtoolStatsCalls {
 public:
  std::vector<std::string> names_now;
  std::uint64_t base = 100;  ///< values are base + index, base grows by 1000 per GSTATS
  std::deque<Result<std::uint32_t>> count_queue;
  std::deque<Result<std::vector<std::string>>> names_queue;
  std::deque<Result<std::vector<std::uint64_t>>> values_queue;
  int count_calls = 0, names_calls = 0, values_calls = 0;

  Result<std::uint32_t> count(const std::string&) override {
    ++count_calls;
    if (!count_queue.empty()) return pop(count_queue);
    return static_cast<std::uint32_t>(names_now.size());
  }
  Result<std::vector<std::string>> names(const std::string&, std::uint32_t expected) override {
    ++names_calls;
    if (!names_queue.empty()) return pop(names_queue);
    if (names_now.size() > expected) return errno_error(EFAULT, "ethtool GSTRINGS x");
    return names_now;
  }
  Result<std::vector<std::uint64_t>> values(const std::string&, std::uint32_t expected) override {
    ++values_calls;
    if (!values_queue.empty()) return pop(values_queue);
    if (names_now.size() > expected) return errno_error(EFAULT, "ethtool GSTATS x");
    std::vector<std::uint64_t> v;
    for (std::size_t i = 0; i < names_now.size(); ++i) v.push_back(base + i);
    base += 1000;
    return v;
  }

 private:
  template <class T>
  static T pop(std::deque<T>& q) {
    T v = q.front();
    q.pop_front();
    return v;
  }
};

std::vector<std::uint8_t> slots(const std::vector<std::string>& names) {
  std::vector<std::uint8_t> out;
  for (const auto& n : names) {
    std::vector<std::uint8_t> slot(32, 0);
    std::copy(n.begin(),
              n.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(n.size(), 32)),
              slot.begin());
    out.insert(out.end(), slot.begin(), slot.end());
  }
  return out;
}

}  // namespace

TEST_CASE("decode_ethtool_strings handles padding, full-width and odd names",
          "[ethtool_stats_reader]") {
  const std::string full32 = "rx_prio7_pause_duration_0123456";  // 31 chars
  const std::string exactly32 = full32 + "X";
  REQUIRE(exactly32.size() == 32);
  struct Case {
    const char* what;
    std::vector<std::string> names;
  };
  const std::vector<Case> cases = {
      {"ordinary names", {"rx_pause_ctrl_phy", "tx_pause_ctrl_phy"}},
      {"32 chars, no NUL, followed by another", {exactly32, "next"}},
      {"empty name", {"", "after_empty"}},
      {"spaces, dots and brackets", {"rx_queue_0 packets", "link_xon_rx.nic", "tx[0]"}},
      {"bytes that are not UTF-8", {std::string("bad\xff\xfe"), "ok"}},
      {"no names", {}},
  };
  for (const auto& c : cases) {
    SECTION(c.what) {
      auto bytes = slots(c.names);
      auto r = decode_ethtool_strings(bytes, static_cast<std::uint32_t>(c.names.size()));
      REQUIRE(r.ok());
      CHECK(*r == c.names);
    }
  }
  SECTION("bytes after the first NUL in a slot are ignored") {
    auto bytes = slots({"abc"});
    bytes[5] = 'z';
    auto r = decode_ethtool_strings(bytes, 1);
    REQUIRE(r.ok());
    CHECK(r->at(0) == "abc");
  }
  SECTION("data shorter than count slots is an error") {
    auto bytes = slots({"a", "b"});
    bytes.pop_back();
    auto r = decode_ethtool_strings(bytes, 2);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EPROTO);
    CHECK(r.error().message == "ethtool strings: 63 bytes cannot hold 2 names");
  }
}

TEST_CASE("EthtoolStatsReader pairs names with values and caches the names",
          "[ethtool_stats_reader]") {
  FakeCalls calls;
  calls.names_now = {"rx_packets", "tx_packets"};
  EthtoolStatsReader reader(calls);

  auto first = reader.read("eth0");
  REQUIRE(first.ok());
  CHECK(*first == CounterMap{{"rx_packets", 100}, {"tx_packets", 101}});
  auto second = reader.read("eth0");
  REQUIRE(second.ok());
  CHECK(*second == CounterMap{{"rx_packets", 1100}, {"tx_packets", 1101}});
  CHECK(calls.names_calls == 1);  // cached: same count
  CHECK(calls.count_calls == 2);  // the count is checked on every read

  SECTION("a different interface has its own cache entry") {
    REQUIRE(reader.read("eth1").ok());
    CHECK(calls.names_calls == 2);
  }
  SECTION("forget() drops the cache") {
    reader.forget("eth0");
    REQUIRE(reader.read("eth0").ok());
    CHECK(calls.names_calls == 2);
  }
}

TEST_CASE("EthtoolStatsReader re-reads the names when the count changes between ticks",
          "[ethtool_stats_reader]") {
  FakeCalls calls;
  calls.names_now = {"rx_pause_ctrl_phy", "tx_pause_ctrl_phy"};
  EthtoolStatsReader reader(calls);
  REQUIRE(reader.read("ens1f0").ok());

  // PFC enabled on priority 3: new strings appear in the middle of the set.
  calls.names_now = {"rx_pause_ctrl_phy", "rx_prio3_pause", "tx_pause_ctrl_phy"};
  auto r = reader.read("ens1f0");
  REQUIRE(r.ok());
  CHECK(*r == CounterMap{{"rx_pause_ctrl_phy", 1100},
                         {"rx_prio3_pause", 1101},
                         {"tx_pause_ctrl_phy", 1102}});
  CHECK(calls.names_calls == 2);
}

TEST_CASE("EthtoolStatsReader refreshes cached names periodically (same-count swap)",
          "[ethtool_stats_reader]") {
  FakeCalls calls;
  calls.names_now = {"rx_prio3_pause"};
  EthtoolStatsReader reader(calls);
  for (unsigned i = 0; i < EthtoolStatsReader::kRefreshEveryReads; ++i) {
    REQUIRE(reader.read("ens1f0").ok());
  }
  CHECK(calls.names_calls == 1);
  // PFC moved from priority 3 to 4: same count, other name.
  calls.names_now = {"rx_prio4_pause"};
  auto r = reader.read("ens1f0");
  REQUIRE(r.ok());
  CHECK(r->count("rx_prio4_pause") == 1);
  CHECK(r->count("rx_prio3_pause") == 0);
  CHECK(calls.names_calls == 2);
}

TEST_CASE("EthtoolStatsReader retries when the set changes between the calls",
          "[ethtool_stats_reader]") {
  FakeCalls calls;
  calls.names_now = {"a", "b", "c"};
  EthtoolStatsReader reader(calls);

  SECTION("set shrank between GSSET_INFO and GSTRINGS") {
    calls.names_queue.push_back(std::vector<std::string>{"a", "b"});
    auto r = reader.read("eth0");
    REQUIRE(r.ok());
    CHECK(r->size() == 3);
    CHECK(calls.count_calls == 2);
  }
  SECTION("set grew between GSSET_INFO and GSTRINGS (EFAULT from the guarded buffer)") {
    calls.names_queue.push_back(errno_error(EFAULT, "ethtool GSTRINGS eth0"));
    auto r = reader.read("eth0");
    REQUIRE(r.ok());
    CHECK(*r == CounterMap{{"a", 100}, {"b", 101}, {"c", 102}});
  }
  SECTION("set changed between GSTRINGS and GSTATS: cached names are dropped") {
    REQUIRE(reader.read("eth0").ok());  // names cached
    calls.values_queue.push_back(std::vector<std::uint64_t>{1, 2});
    calls.names_now = {"a", "x", "c"};  // what the next GSTRINGS will say
    auto r = reader.read("eth0");
    REQUIRE(r.ok());
    CHECK(r->count("x") == 1);  // the names were re-read, not reused by count
    CHECK(calls.names_calls == 2);
  }
  SECTION("GSTATS EFAULT (the set grew) is retried") {
    calls.values_queue.push_back(errno_error(EFAULT, "ethtool GSTATS eth0"));
    auto r = reader.read("eth0");
    REQUIRE(r.ok());
    CHECK(r->size() == 3);
    CHECK(calls.values_calls == 2);
  }
  SECTION("a set that changes on every attempt gives EAGAIN after a bounded number of tries") {
    for (int i = 0; i < EthtoolStatsReader::kMaxAttempts; ++i) {
      calls.names_queue.push_back(std::vector<std::string>{"a"});
    }
    auto r = reader.read("eth0");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EAGAIN);
    CHECK(r.error().message.find("eth0: the string set changed on each of 4 attempts") !=
          std::string::npos);
    CHECK(calls.count_calls == EthtoolStatsReader::kMaxAttempts);
  }
}

TEST_CASE("EthtoolStatsReader passes kernel errors through", "[ethtool_stats_reader]") {
  FakeCalls calls;
  calls.names_now = {"a"};
  EthtoolStatsReader reader(calls);

  SECTION("ENODEV from the count: the netdev vanished; its cache entry is dropped") {
    REQUIRE(reader.read("eth0").ok());
    calls.count_queue.push_back(errno_error(ENODEV, "ethtool GSSET_INFO eth0"));
    auto r = reader.read("eth0");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ENODEV);
    CHECK(r.error().message == "ethtool GSSET_INFO eth0: No such device");
    REQUIRE(reader.read("eth0").ok());
    CHECK(calls.names_calls == 2);
  }
  SECTION("EOPNOTSUPP from the count") {
    calls.count_queue.push_back(errno_error(EOPNOTSUPP, "ethtool GSSET_INFO lo"));
    auto r = reader.read("lo");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EOPNOTSUPP);
  }
  SECTION("a count of zero means no statistics") {
    calls.names_now.clear();
    auto r = reader.read("lo");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EOPNOTSUPP);
    CHECK(calls.names_calls == 0);
  }
  SECTION("EACCES from GSTRINGS is not retried") {
    calls.names_queue.push_back(errno_error(EACCES, "ethtool GSTRINGS eth0"));
    auto r = reader.read("eth0");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EACCES);
    CHECK(calls.count_calls == 1);
  }
  SECTION("EIO from GSTATS is not retried") {
    calls.values_queue.push_back(errno_error(EIO, "ethtool GSTATS eth0"));
    auto r = reader.read("eth0");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EIO);
    CHECK(r.error().message == "ethtool GSTATS eth0: Input/output error");
  }
}

TEST_CASE("EthtoolStatsReader keeps the first of repeated names", "[ethtool_stats_reader]") {
  FakeCalls calls;
  calls.names_now = {"dup", "other", "dup"};
  EthtoolStatsReader reader(calls);
  auto r = reader.read("eth0");
  REQUIRE(r.ok());
  CHECK(*r == CounterMap{{"dup", 100}, {"other", 101}});
}

}  // namespace rdmatop

namespace rdmatop {
namespace {

TEST_CASE("A subset read picks the cached positions and follows a changed string set",
          "[ethtool][fast]") {
  FakeCalls calls;
  calls.names_now = {"rx_bytes", "rx_prio3_pause", "rx_prio3_pause_duration", "tx_bytes"};
  EthtoolStatsReader reader(calls);
  const std::vector<std::string> only = {"rx_prio3_pause_duration", "tx_prio3_pause_duration"};
  auto first = reader.read("eth0", only);
  REQUIRE(first.ok());
  CHECK(first->size() == 1);  // the absent name stays absent, never 0
  CHECK(first->at("rx_prio3_pause_duration") == 102);
  // Cached: GSSET_INFO + GSTATS per read, no GSTRINGS until the periodic refresh.
  for (int i = 0; i < 5; ++i) REQUIRE(reader.read("eth0", only).ok());
  CHECK(calls.names_calls == 1);
  CHECK(calls.count_calls == 6);
  CHECK(calls.values_calls == 6);
  // PFC moved: the set grows, the positions are recomputed from the new names.
  calls.names_now = {"rx_bytes", "rx_prio3_pause", "tx_prio3_pause_duration",
                     "rx_prio3_pause_duration", "tx_bytes"};
  auto moved = reader.read("eth0", only);
  REQUIRE(moved.ok());
  CHECK(moved->size() == 2);
  CHECK(moved->at("rx_prio3_pause_duration") - moved->at("tx_prio3_pause_duration") == 1);
}

}  // namespace
}  // namespace rdmatop
