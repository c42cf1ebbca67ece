// Snapshot -> canonical series, driven by the one declarative counter table
// (counter_table.cpp). Raw driver counters stay in the Snapshot; nothing is dropped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collector/model/snapshot.h"
#include "collector/normalize/counter_table.h"
#include "collector/normalize/series.h"

namespace rdmatop {

/// Per counter-map names, where each raw name of the counter table sits in them (normalizer.cpp).
using TermSlotCache = PerNames<std::vector<std::int32_t>>;

/// All canonical series of a snapshot, sorted by series_key. Counters a driver lacks produce
/// no series (absent, never 0).
std::vector<Series> normalize(const Snapshot& snapshot);

/// Only the table series named in `series`, unsorted: the PFC fast path's read (a handful of
/// counters every 100 ms, not the whole table).
std::vector<Series> normalize_subset(const Snapshot& snapshot,
                                     std::span<const std::string_view> series);

/// The `ethtool -S` names the table reads for `series` on a driver family: what the fast path
/// asks the kernel for.
std::vector<std::string> ethtool_raw_names(DriverFamily family,
                                           std::span<const std::string_view> series);

/// Observation::series_ports of a series not made in a port's visit of the counter table (probe
/// series, and the device- and host-configuration series, some of them per port: DCB's PFC
/// state, the QP counters' modes): its device and port labels, if any, say which port it is.
inline constexpr std::uint32_t kPortByLabels = 0xffffffff;

/// A snapshot together with its canonical series: what the outputs and the rules consume,
/// normalized once per tick.
struct Observation {
  Snapshot snapshot;
  std::vector<Series> series;
  /// Per series, the port whose visit made it: its ordinal among the snapshot's ports, devices
  /// in order and each device's ports in order (as PublishedTick::ports lists them), or
  /// kPortByLabels. The normalizer knows it when it makes the series, so the tick need not find
  /// it again from the labels (a sixth of build_tick on the 16-port host, issue 18). Empty when
  /// unknown (an Observation made by hand): build_tick then reads every series' labels.
  std::vector<std::uint32_t> series_ports;
};

Observation make_observation(Snapshot snapshot);

/// One series as the Normalizer made it, kept for the next snapshot.
struct SeriesShape {
  SharedText name;
  SharedLabels labels;
  SharedText origin;
};

/// What the Normalizer remembers of the previous snapshot's labels (normalizer.cpp): per series
/// made, the recipe of its labels (the port's place in the walk and the counter table's group
/// it came from; 0 for other series), and per port of the walk, the port's own labels. A table
/// series made from its position's recipe, for a port whose labels did not change, takes that
/// series' labels without making or comparing them: drafting and comparing the labels of every
/// table series was half of normalize on the 16-port host (issue 18).
struct LabelMemory {
  std::vector<std::uint64_t> recipes;
  std::vector<Labels> port_labels;
};

/// normalize() for a sequence of snapshots of one host: the series a snapshot yields are the
/// same names and labels, made in the same order, from one tick to the next until discovery
/// changes something, and so is their sorted order. It is computed (a series key per series and
/// a sort: a third of normalize on a 16-port host, issue 18) only when they differ from the
/// previous snapshot's, and a series whose labels equal its position's last time shares them
/// (labels.h); the result is always equal to what normalize() returns.
class Normalizer {
 public:
  std::vector<Series> normalize(const Snapshot& snapshot);
  /// make_observation through normalize above.
  Observation observe(Snapshot snapshot);

 private:
  /// normalize, and each series' Observation::series_ports into `ports` when given.
  std::vector<Series> normalize(const Snapshot& snapshot, std::vector<std::uint32_t>* ports);

  /// The previous snapshot's series, in the order made: the next one's labels are theirs where
  /// equal, and the sort below is redone only when they differ.
  std::vector<SeriesShape> shape_;
  std::vector<std::size_t> order_;  ///< their positions in series_key order, duplicates out
  /// The counter table's raw names found once per counter map's names, not per tick.
  TermSlotCache term_slots_;
  LabelMemory labels_;
};

}  // namespace rdmatop
