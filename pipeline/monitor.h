// The monitoring loop every long-running surface shares (TUI, exporter, demo, replay, record):
// take a snapshot from a provider, normalize it, feed the rules, and publish the result as an
// immutable PublishedTick (with rates against the previous tick). Readers on other threads take the
// latest PublishedTick without ever blocking the collection or each other.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "collector/collect.h"
#include "collector/model/snapshot.h"
#include "collector/normalize/normalizer.h"
#include "collector/snapshot_provider.h"
#include "pipeline/fast_path.h"
#include "pipeline/tick.h"
#include "rules/diagnoser.h"

namespace rdmatop {

class Monitor {
 public:
  Monitor(SnapshotProvider provider, std::vector<RuleGroup> rules,
          std::vector<std::string> rule_load_errors = {});

  /// Collects one tick, diagnoses it and publishes it. Returns the new PublishedTick, or null when
  /// the provider has no more snapshots. Not thread-safe with itself: call from one thread.
  std::shared_ptr<const PublishedTick> step();
  /// Whether the ticks carry each port's PortView (build, the default); a surface that shows
  /// none (the exporter) skips them. Call before the first step().
  void set_port_views(PortViews views) { port_views_ = views; }

  /// The latest PublishedTick (null before the first step). Safe from any thread.
  std::shared_ptr<const PublishedTick> latest() const;

  /// Ticks published so far.
  std::uint64_t ticks() const;

  /// Turns the PFC fast path on (docs/rules.md, "Sub-second PFC detection"): fast_poll() then
  /// polls `source`, and every PublishedTick carries its findings merged with the rules'.
  void enable_fast_path(std::unique_ptr<EthtoolSource> source, FastPathOptions options);
  bool fast_path_enabled() const;
  double fast_interval_seconds() const;

  /// One fast poll at `t_us` (unix microseconds; simulated time in the simulator). When its
  /// findings changed, republishes the latest PublishedTick with them at once (latest() returns it;
  /// ticks() does not count it), so a storm reaches rdmatop_finding, the TUI and the report
  /// on the next publish, not the next slow tick. Safe from another thread than step().
  bool fast_poll(std::int64_t t_us);

  /// stats_subset reads the fast path made so far.
  std::uint64_t fast_reads() const;

 private:
  SnapshotProvider provider_;
  Normalizer normalizer_;
  Diagnoser diagnoser_;
  std::vector<std::string> rule_load_errors_;
  /// The previous tick's series and time: the base of the next report's rates (valid once
  /// has_rate_base_). Two buffers that swap each tick: the series are copied by assignment
  /// into the spare one, whose strings and label vectors already have their capacity from two
  /// ticks ago, so keeping the base allocates nothing while the host's series stay the same
  /// (a fresh copy was 10 M instructions per tick at 64 ports, issue 18).
  Observation rate_base_;
  Observation spare_rate_base_;
  bool has_rate_base_ = false;
  PortViews port_views_ = PortViews::build;
  std::uint64_t seq_ = 0;

  // The fast path; fast_mutex_ guards it and slow_findings_, and is taken before mutex_.
  mutable std::mutex fast_mutex_;
  std::unique_ptr<EthtoolSource> fast_source_;
  std::unique_ptr<FastPath> fast_;
  std::vector<Finding> slow_findings_;  ///< the rules' findings of the latest tick

  mutable std::mutex mutex_;  // guards latest_ and published_
  std::shared_ptr<const PublishedTick> latest_;
  std::uint64_t published_ = 0;
};

/// Unix milliseconds of a wall-clock time point: the rules' timestamps.
std::int64_t unix_ms(std::chrono::system_clock::time_point t);

}  // namespace rdmatop
