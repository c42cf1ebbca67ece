// The diagnostic report as data: two snapshots -> inventory + per-port canonical series with
// rates. Pure (no I/O), so it is unit-tested on hand-built snapshots and rendered as text or
// JSON by report_text.cpp / report_json.cpp.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "collector/model/snapshot.h"
#include "collector/normalize/normalizer.h"
#include "collector/normalize/rates.h"
#include "collector/normalize/series.h"
#include "pipeline/port_view.h"
#include "rules/fast/fast_path_port.h"
#include "rules/finding.h"
#include "rules/rule_coverage.h"

namespace rdmatop {

struct SeriesWithRate {
  Series series;
  Rate rate;
};

struct TickPort {
  std::size_t device_index = 0;             ///< into PublishedTick::snapshot.devices
  std::size_t port_index = 0;               ///< into that device's ports
  std::optional<std::size_t> netdev_index;  ///< into PublishedTick::snapshot.netdevs
  std::optional<GidEntry> roce_v2_gid;      ///< first routable RoCE v2 GID, if any
  std::vector<SeriesWithRate> series;       ///< canonical series of this port, sorted by key
  /// The figures every surface shows of this port, from `series`; every figure none when the
  /// tick was built without views (PortViews::skip).
  PortView view;
};

/// Whether build_tick computes each port's PortView: the TUI and the report show them; the
/// exporter serves series only, and skips their cost (a third of build_tick, issue 18).
enum class PortViews { build, skip };

struct PublishedTick {
  Snapshot snapshot;            ///< the later of the two snapshots: what the report shows
  double interval_seconds = 0;  ///< measured between the two snapshots; 0 for a single one
  std::vector<TickPort> ports;  ///< in device, port order
  /// Active-probe series (collector/normalize/probe_series.h): per stream, not per port.
  std::vector<SeriesWithRate> probe_series;  ///< sorted by series key
  /// Device-scope host-configuration series (host_config_series.h: IRQ counts, devlink,
  /// firmware), with rates.
  std::vector<SeriesWithRate> host_series;  ///< sorted by series key
  std::vector<Finding> findings;            ///< live ones most severe first, then lifetime ones
  std::vector<std::string> rule_errors;     ///< rule files that failed to load or evaluate
  /// Per alert rule: could it evaluate on this host, and if not which input was missing.
  std::vector<RuleCoverage> coverage;
  /// Per port: whether the PFC fast path watches it and how (empty: the fast path is off).
  std::vector<fast::FastPathPort> fast_path;
  double fast_interval_seconds = 0;  ///< the fast path's poll interval; 0 when it is off
};

/// `first` may be null (single snapshot: every rate is init).
PublishedTick build_tick(const Observation* first, Observation last,
                         std::vector<Finding> findings = {},
                         std::vector<std::string> rule_errors = {},
                         PortViews views = PortViews::build);

/// Exit codes of `rdmatop report` (docs/cli.md).
enum class ReportExit : int {
  healthy = 0,
  warning = 1,
  critical = 2,
  usage = 3,    ///< bad flags or arguments
  no_data = 4,  ///< nothing could be collected (no RDMA device readable)
};

/// no_data when no RDMA device was read; otherwise the worst pending or firing finding.
ReportExit report_exit_code(const PublishedTick& report);

}  // namespace rdmatop
