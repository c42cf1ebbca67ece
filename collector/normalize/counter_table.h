// The ONE declarative counter table: which raw driver counter feeds which canonical series,
// with which labels, unit scale and hardware width. normalizer.cpp applies it; every series it
// names is a row of the metric catalogue (metric_catalogue.h: kind, unit, labels, help);
// docs/metrics.md documents every raw name (unit tests keep the three in step).
//
// How rows combine. Rows that produce the same series name and label set on one port form a
// group. Within a group, in table order, each row with `Combine::first_present` starts an
// alternative and each following row with `Combine::sum_with_previous` adds a term to it. The
// first alternative whose terms are ALL present gives the value (a partial sum would be a
// silent undercount, so it is skipped); a group with no complete alternative emits nothing.
#pragma once

#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <string_view>

#include "collector/normalize/driver_family.h"

namespace rdmatop {

/// Where a raw counter is read from (all of them are CounterMaps of the Snapshot).
enum class RawSource : std::uint8_t {
  port_hw_counters,    ///< PortSample::hw_counters (class/infiniband/<dev>/ports/<n>/hw_counters)
  device_hw_counters,  ///< DeviceSample::hw_counters; applied to the device's first port only
  pma_counters,        ///< PortSample::counters (IB PMA, ports/<n>/counters)
  ethtool,             ///< NetdevSample::ethtool (`ethtool -S` strings)
  netdev_statistics,   ///< NetdevSample::statistics (class/net/<if>/statistics)
};

enum class Combine : std::uint8_t {
  first_present,      ///< starts a new alternative of its group
  sum_with_previous,  ///< adds a term to the alternative of the row just above
};

/// A label fixed by the row, e.g. {"direction", "rx"}. Empty name: no label.
struct FixedLabel {
  std::string_view name;
  std::string_view value;
};

/// The placeholder in a raw name that expands to priorities 0..7 and sets label `priority`.
inline constexpr std::string_view kPriorityPlaceholder = "{p}";
inline constexpr int kPriorityCount = 8;
/// The placeholder that expands to the PHY lanes 0..3 and sets label `lane` (mlx5e
/// rx_err_lane_{0..3}_phy: en_stats.c pport_phy_statistical_err_lanes_stats_desc has 4 lanes).
inline constexpr std::string_view kLanePlaceholder = "{l}";
inline constexpr int kLaneCount = 4;

/// A placeholder of raw names: its text, the label it sets and how many values it takes.
struct Placeholder {
  std::string_view text;
  std::string_view label;
  int count = 0;
};
inline constexpr Placeholder kPlaceholders[] = {
    {kPriorityPlaceholder, "priority", kPriorityCount},
    {kLanePlaceholder, "lane", kLaneCount},
};

/// Index in kPlaceholders of the placeholder the raw name contains (a row has at most one), or
/// -1. An index, not a pointer, so that the table's compile-time checks stay constant
/// expressions in sanitizer builds (GCC's UBSan makes a pointer comparison non-constant).
constexpr int placeholder_index(std::string_view raw) {
  for (int i = 0; i < static_cast<int>(std::size(kPlaceholders)); ++i) {
    if (raw.find(kPlaceholders[i].text) != std::string_view::npos) return i;
  }
  return -1;
}

/// The placeholder the raw name contains, or nullptr.
inline const Placeholder* placeholder_of(std::string_view raw) {
  const int i = placeholder_index(raw);
  return i < 0 ? nullptr : &kPlaceholders[i];
}

/// One row of the table: one raw counter (or raw pattern) feeding one canonical series.
struct CounterRow {
  std::string_view series;  ///< canonical name: a counter row of metric_catalogue()
  DriverFamily driver = DriverFamily::any;
  RawSource source = RawSource::port_hw_counters;
  std::string_view raw;  ///< raw name, verbatim (may contain spaces); may contain "{p}"/"{l}"
  FixedLabel label{};
  double scale = 1;  ///< raw value * scale = canonical unit (PMA *_data: 4; µs: 1e-6)
  /// Hardware width in bits when the counter wraps at 2^width; 0 when it is 64-bit, saturates
  /// (IB PMA legacy counters) or its width is not verified (a reset is then reported, never a
  /// bogus wrap).
  std::uint8_t width_bits = 0;
  Combine combine = Combine::first_present;
};

/// Every row, in table order (the order decides first-present).
std::span<const CounterRow> counter_rows();
/// The raw name of a row for one value of its placeholder ("rx_prio{p}_pause", 3 ->
/// "rx_prio3_pause"; "rx_err_lane_{l}_phy", 1 -> "rx_err_lane_1_phy").
std::string expand_raw_name(std::string_view raw, int value);
/// True when the raw name contains the priority placeholder.
bool has_priority_placeholder(std::string_view raw);
/// Wrap modulus in canonical units: 2^width_bits * scale, or 0 when the row does not wrap.
double wrap_modulus(const CounterRow& row);

/// Width in bits of a raw counter that SATURATES (stops at 2^width - 1 until reset) rather than
/// wraps: the IB PMA PortCounters error counters, 4 to 32 bits wide (IBTA PortCounters
/// attribute; drivers/infiniband/core/sysfs.c PORT_PMA_ATTR). 0 for every other counter.
std::uint8_t saturating_width_bits(RawSource source, std::string_view raw);
/// The value a row's counter stops at, in canonical units ((2^width - 1) * scale), or 0.
double saturation_value(const CounterRow& row);

const char* to_string(RawSource source);
const char* to_string(Combine combine);

}  // namespace rdmatop
