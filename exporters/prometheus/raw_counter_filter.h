// Which raw driver counters (the rdma_raw_* families) the exporter serves: cardinality control.
// A 64-queue NIC lists thousands of per-queue ethtool statistics per netdev (mlx5e "rx12_bytes",
// "ch3_events"; ice and virtio_net "rx_queue_7_packets"; i40e "tx-5.bytes"; bnxt_en "[3]:
// rx_ucast_packets"), every one a series in every scrape while no rule reads them. So
// per-queue statistics are off unless asked for, and operators can keep or drop raw counters
// by name. The canonical series (rdma_*_total and friends) never pass through this filter.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "collector/model/regex.h"
#include "collector/model/result.h"

namespace rdmatop {

struct RawCounterFilterOptions {
  std::string include;     ///< keep only names matching (whole name); empty: every name
  std::string exclude;     ///< then drop names matching (whole name); empty: none
  bool per_queue = false;  ///< also serve per-queue/per-channel ethtool statistics
};

class RawCounterFilter {
 public:
  /// Checks both patterns (RE2 regular expressions, anchored at both ends like Prometheus'
  /// label matchers: collector/model/regex.h); a bad pattern is an error that names it.
  static Result<RawCounterFilter> make(const RawCounterFilterOptions& options);

  RawCounterFilter() = default;
  RawCounterFilter(const RawCounterFilter& other);
  RawCounterFilter& operator=(const RawCounterFilter& other);

  /// Whether the raw counter `name` of an ethtool statistics map (`ethtool_stat` true) or of
  /// any other raw family is served. Decisions are cached per name: names are a fixed set per
  /// driver, and a regular expression per counter per scrape would cost more than the rest of
  /// the scrape.
  bool admits(const std::string& name, bool ethtool_stat) const;

 private:
  RawCounterFilterOptions options_;
  std::optional<AnchoredRegex> include_;
  std::optional<AnchoredRegex> exclude_;
  mutable std::mutex mutex_;  // guards the decisions: scrapes may build families concurrently
  mutable std::unordered_map<std::string, bool> ethtool_decisions_;
  mutable std::unordered_map<std::string, bool> other_decisions_;
};

/// Whether an ethtool statistic counts one queue or channel rather than the port.
bool is_per_queue_ethtool_stat(const std::string& name);

}  // namespace rdmatop
