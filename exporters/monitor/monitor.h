// The monitoring loop every long-running surface shares (TUI, exporter, demo, replay, record):
// take a snapshot from a provider, normalize it, feed the rules, and publish the result as an
// immutable Report (with rates against the previous tick). Readers on other threads take the
// latest published Report without ever blocking the collection or each other.
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
#include "exporters/report/report_model.h"
#include "rules/diagnoser.h"

namespace rdmatop {

/// Where snapshots come from: the live collectors, the simulator's tree, or a recording.
/// Returns nullopt when there are no more (end of a recording).
using SnapshotProvider = std::function<std::optional<Snapshot>(std::uint64_t seq)>;

/// A provider that runs the collectors on `ctx` (which must outlive it).
SnapshotProvider live_provider(const CollectContext& ctx);

class Monitor {
 public:
  Monitor(SnapshotProvider provider, std::vector<RuleGroup> rules,
          std::vector<std::string> rule_load_errors = {});

  /// Collects one tick, diagnoses it and publishes it. Returns the new Report, or null when the
  /// provider has no more snapshots. Not thread-safe with itself: call from one thread.
  std::shared_ptr<const Report> step();

  /// The latest published Report (null before the first step). Safe from any thread.
  std::shared_ptr<const Report> latest() const;

  /// Ticks published so far.
  std::uint64_t ticks() const;

 private:
  SnapshotProvider provider_;
  Diagnoser diagnoser_;
  std::vector<std::string> rule_load_errors_;
  /// The previous tick's series and time: the base of the next report's rates.
  std::shared_ptr<const Observation> previous_;
  std::uint64_t seq_ = 0;

  mutable std::mutex mutex_;  // guards latest_ and published_
  std::shared_ptr<const Report> latest_;
  std::uint64_t published_ = 0;
};

/// Unix milliseconds of a wall-clock time point: the rules' timestamps.
std::int64_t unix_ms(std::chrono::system_clock::time_point t);

}  // namespace rdmatop
