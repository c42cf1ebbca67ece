// When to send which probe: each stream (target x transport x traffic class) probes at its own
// rate with jitter (so thousands of targets do not fire in lockstep), a global token bucket caps
// the total, and payload sizes rotate per stream (small, about one MTU, several MTUs: some loss
// hits only large packets: Aegis, NSDI'25; docs/domain.md#probe-sizes). The clock is injected
// so the tests step time instead of sleeping.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rdmatop::probes {

struct ScheduleOptions {
  double rate_per_stream = 1.0;  ///< probes per second per stream unless the stream says otherwise
  double jitter = 0.2;           ///< each interval is period * (1 +- jitter), uniformly
  double rate_cap = 0;           ///< global probes per second; 0: no cap
  std::vector<std::size_t> sizes = {64, 1024, 16384};  ///< payload bytes, rotated per stream
  std::uint64_t seed = 1;
};

struct DueProbe {
  std::uint64_t stream = 0;
  std::size_t payload_bytes = 0;
};

class Scheduler {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  using TimePoint = std::chrono::steady_clock::time_point;

  /// Throws std::invalid_argument for a non-positive rate, jitter outside [0, 1), a negative
  /// cap or no sizes: these come from validated flags, so a bad value is a programming error.
  Scheduler(ScheduleOptions options, Clock clock);

  /// Adds a stream (rate: its own probes/s, else the default). Its first probe comes at a random
  /// phase within one period. Re-adding an existing id changes nothing.
  void add_stream(std::uint64_t id, std::optional<double> rate = std::nullopt);
  void remove_stream(std::uint64_t id);
  std::size_t stream_count() const { return streams_.size(); }

  /// The probes due now, oldest due first, as many as the rate cap allows; each returned stream
  /// is rescheduled one jittered interval after its due time (or after now when far behind).
  std::vector<DueProbe> take_due();
  /// When take_due() can next return something (now or earlier: already due); nullopt when
  /// there are no streams.
  std::optional<TimePoint> next_due() const;

 private:
  struct Stream {
    std::chrono::nanoseconds period{0};  ///< its next due time is its queue entry's
    std::size_t next_size = 0;
    std::uint64_t generation = 0;  ///< of its queue entry; an entry of another is stale
  };
  /// A stream's next probe. Entries of removed (or removed and re-added) streams stay in the
  /// heap until they come up and are dropped then: removal costs no search.
  struct Entry {
    TimePoint due{};
    std::uint64_t stream = 0;
    std::uint64_t generation = 0;
  };
  /// The heap's order: a std heap keeps on top what no other entry "precedes", so with "is due
  /// later" the earliest entry (among equals the lowest id, as a sorted set had it) is on top.
  struct DueLater {
    bool operator()(const Entry& a, const Entry& b) const {
      return std::tie(a.due, a.stream) > std::tie(b.due, b.stream);
    }
  };
  void push(const Entry& entry);
  /// Drops stale entries from the top of the heap.
  void drop_stale();
  std::chrono::nanoseconds jittered(std::chrono::nanoseconds period);
  void refill(TimePoint now);

  ScheduleOptions options_;
  Clock clock_;
  std::mt19937_64 rng_;
  /// A hash map and a binary heap in one vector: each due probe costs a few cache lines, where
  /// a std::map and a std::set of 1,000 streams were most of the runner's CPU (bench/README.md,
  /// session 28).
  std::unordered_map<std::uint64_t, Stream> streams_;
  std::vector<Entry> queue_;  ///< a heap (std::push_heap), earliest due on top
  std::uint64_t next_generation_ = 1;
  double tokens_ = 0;
  double burst_ = 0;
  TimePoint refilled_{};
};

}  // namespace rdmatop::probes
