// Flags shared by every subcommand that reads a host (spelled the same everywhere:
// --sysfs-root, --ethtool-dir, --device, --exclude-device, --counters), and the sources they
// select.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "collector/collect.h"
#include "pipeline/monitor.h"
#include "rules/rule_set.h"
#include "simulator/simulator.h"

namespace rdmatop {

struct SourceOptions {
  std::string sysfs_root = "/sys";
  std::string ethtool_dir;  ///< empty: live SIOCETHTOOL
  std::vector<std::string> devices;
  std::vector<std::string> exclude_devices;
  std::string counters = "auto";  ///< --counters: auto | netlink | sysfs
  std::string procfs_root;        ///< --procfs-root; empty: /proc on the live host, none otherwise
  std::string file_cache = "on";  ///< --file-cache: on (make_cached_file_source) | off
};

void add_source_options(CLI::App& command, SourceOptions& options);

/// --rules / --no-builtin-rules, the same on every subcommand that diagnoses.
struct RuleOptions {
  std::vector<std::string> files;
  bool no_builtin = false;
};

void add_rule_options(CLI::App& command, RuleOptions& options);

/// Loads the built-in pack and the --rules files. A broken file is reported on stderr as
/// "<who>: rules: <error>" and skipped (the errors stay in the result for the outputs to show).
RuleSetLoad load_rules(const RuleOptions& options, const std::string& who);

/// --probe-targets FILE (+ --probe-transport, --probe-rate, --probe-no-qp-counter): a pingmesh
/// prober whose results every snapshot carries (docs/probes.md). Defined in cli/probe_wiring.cpp.
struct ProbeWiringOptions {
  std::string targets_file;  ///< empty: no prober
  std::string transports = "rc_send";
  double rate = 1;             ///< probes per second per stream
  bool no_qp_counter = false;  ///< --probe-no-qp-counter: do not bind probe QPs to counters
};

void add_probe_options(CLI::App& command, ProbeWiringOptions& options);

/// `provider` unchanged without --probe-targets; else a provider whose snapshots carry the
/// prober's results. The prober starts now, reloads the target file when it changes and stops
/// with the provider; its port retransmit counters come from each snapshot of `provider`. Target
/// file errors go to stderr as "<who>: <file>:<line>: <error>". Error: bad --probe-transport.
Result<SnapshotProvider> with_probe_options(SnapshotProvider provider,
                                            const ProbeWiringOptions& options,
                                            const std::string& who);

/// --from FILE...: a provider replaying a recording (`rdmatop record`): one file, or the files
/// of a rotated recording in any order, as one timeline (RecordingSet); the reader lives inside
/// the provider. Errors: a file cannot be opened, or the files are not one usable recording.
Result<SnapshotProvider> open_replay(const std::vector<std::string>& paths);
/// A replay's source as shown to the user: the first file given, and how many more.
std::string replay_label(const std::vector<std::string>& paths);

/// --demo SCENARIO (exporter, record): the fabric simulator playing SCENARIO (a built-in name,
/// a file, or several joined with commas: sim::load_scenario), looping or not. Errors: an
/// unknown or invalid scenario, a tree that cannot be written.
Result<std::unique_ptr<sim::Simulator>> open_demo(const std::string& scenario, bool loop);

/// --fast-interval SECONDS (TUI, exporter, report, demo): the PFC fast path's poll interval
/// (default 0.1, 0 = off; docs/rules.md "Sub-second PFC detection"). Defined in
/// cli/fast_path_wiring.cpp with the rest of the fast path's wiring.
void add_fast_path_option(CLI::App& command, double& interval_s);

/// On the live host: enables `monitor`'s fast path with a SIOCETHTOOL source of its own.
/// Nothing when `interval_s` is 0 or the host is offline input (dumps do not change between
/// ticks). The caller runs a FastLoop to poll it.
void enable_host_fast_path(Monitor& monitor, const SourceOptions& options, double interval_s);

/// The fast path of the simulated host: polls between the simulator's ticks, on simulated time,
/// reading the simulated model's ethtool statistics as they are at that instant.
class SimulatedFastPath {
 public:
  SimulatedFastPath(sim::Simulator& sim, double interval_s);
  /// simulator_provider(sim, filter) with the fast polls (plain when the interval is 0).
  SnapshotProvider provider(DeviceFilter filter = {});
  /// Enables the fast path on `monitor`, which the provider's polls then feed.
  void attach(Monitor& monitor);

 private:
  sim::Simulator& sim_;
  double interval_s_;
  std::shared_ptr<Monitor*> monitor_ = std::make_shared<Monitor*>(nullptr);
};

/// The OS sources chosen by the flags, owning what CollectContext refers to.
class HostSources {
 public:
  explicit HostSources(const SourceOptions& options);
  CollectContext context() const;

 private:
  std::unique_ptr<FileSource> sysfs_;
  std::unique_ptr<EthtoolSource> ethtool_;
  std::unique_ptr<RdmaNetlinkSource> netlink_;   ///< nullptr unless reading the live host
  std::unique_ptr<DevlinkSource> devlink_;       ///< nullptr unless reading the live host
  std::unique_ptr<DcbSource> dcb_;               ///< nullptr unless reading the live host
  std::unique_ptr<LinkStatsSource> link_stats_;  ///< nullptr unless reading the live host
  std::unique_ptr<FileSource> procfs_;           ///< nullptr: no process data
  CounterSource counters_ = CounterSource::sysfs;
  DeviceFilter filter_;
};

}  // namespace rdmatop
