// The PFC fast path's poll: every ~100 ms, read only the per-priority pause counters (and the
// storm-watchdog counters and per-priority packets that tell a stall from heavy pause) of the
// ports the last slow tick found, through EthtoolSource::stats_subset (the live source reads
// GSSET_INFO + GSTATS and picks cached positions, GSTRINGS only on its every-10th-read refresh of
// the names; no GID tables, hw_counters, DCB),
// map them with the one counter table (normalize_subset) and feed the detector
// (rules/fast/pfc_fast_detector.h). A port whose driver has no such counters is not read at all.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "collector/model/snapshot.h"
#include "collector/normalize/series.h"
#include "collector/source/ethtool_source.h"
#include "rules/fast/fast_path_port.h"
#include "rules/fast/pfc_fast_detector.h"

namespace rdmatop {

struct FastPathOptions {
  double interval_s = 0.1;  ///< --fast-interval; 0 turns the fast path off
  fast::DetectorConfig detector;
};

/// The canonical series the fast path reads (counter_table.cpp rows of these names).
const std::vector<std::string_view>& fast_path_series();

class FastPath {
 public:
  /// `source` is the fast path's own (a live source is not thread-safe); it must outlive this.
  FastPath(EthtoolSource& source, FastPathOptions options);

  /// From a slow tick: the ports to watch, their netdevs and drivers (which names to read,
  /// limited to those the last full `ethtool -S` had) and link rates (frames x quanta).
  void set_targets(const Snapshot& snapshot, const std::vector<Series>& series);

  /// One poll at `t_us` (unix microseconds, simulated in the simulator). True when the
  /// findings changed.
  bool poll(std::int64_t t_us);

  std::vector<Finding> findings() const { return detector_.findings(); }
  const std::vector<fast::FastPathPort>& ports() const { return ports_; }
  const FastPathOptions& options() const { return options_; }
  /// EthtoolSource::stats_subset calls so far (each one a GSSET_INFO + GSTATS on the live host).
  std::uint64_t reads() const { return reads_; }

 private:
  struct Target {
    std::string netdev;
    std::vector<std::string> names;  ///< sorted
  };
  EthtoolSource& source_;
  FastPathOptions options_;
  fast::PfcFastDetector detector_;
  Snapshot skeleton_;  ///< devices, ports and netdevs of the last slow tick, no counters
  std::vector<Target> targets_;
  std::vector<Series> link_rates_;
  std::vector<fast::FastPathPort> ports_;
  std::uint64_t reads_ = 0;
};

}  // namespace rdmatop
