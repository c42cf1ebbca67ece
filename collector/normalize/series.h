// Canonical series: vendor counters mapped to one vocabulary with labels (device, port,
// netdev, priority, direction, ...). These names are the rule language's and the exporter's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collector/normalize/labels.h"
#include "collector/normalize/shared_text.h"

namespace rdmatop {

enum class SeriesKind : std::uint8_t { counter, gauge };

struct Series {
  SharedText name;      ///< "rdma_pfc_pause_seconds_total"
  SharedLabels labels;  ///< {device, direction, netdev, port, priority}
  SeriesKind kind = SeriesKind::counter;
  double value = 0;  ///< in the canonical unit (seconds, bytes, packets, events)
  /// For counters: the value at which the underlying raw counter wraps, in canonical units
  /// (2^32 * scale for a 32-bit hardware counter); 0 when it does not wrap (64-bit/saturating).
  double wrap_modulus = 0;
  /// For counters that stop at their width instead of wrapping (IB PMA PortCounters): the value
  /// they stop at, in canonical units; 0 when the counter does not saturate.
  double saturation_value = 0;
  SharedText origin;  ///< where it came from: "hw_counters/np_cnp_sent", "ethtool/rx_prio3_pause"
};

/// Appends a series, sorting its labels into the Labels order (no wrap modulus).
void add_series(std::vector<Series>& out, std::string_view name, Labels labels, SeriesKind kind,
                double value, std::string origin);

/// Looks up a label value; empty string when absent.
/// Takes the name as a view: callers pass literals, and a `const std::string&` parameter made
/// a string of each one per call (several per series per tick, issue 18).
const std::string& label_value(const Labels& labels, std::string_view name);
/// A stable text key "name{a="x",b="y"}" used to match series across snapshots.
std::string series_key(const std::string& name, const Labels& labels);

}  // namespace rdmatop
