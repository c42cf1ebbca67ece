// The fabric simulator: plays a scenario timeline on the simulated host and keeps a live
// offline tree (`<root>/sys`, `<root>/ethtool`) up to date, tick by tick, in simulated time.
// It is a data source like a recording: simulator_provider() runs the real collectors on the
// tree, so the normalizer, the rules and every output see exactly what hardware would give.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collector/collect.h"
#include "collector/snapshot_provider.h"
#include "simulator/host_model.h"
#include "simulator/scenario.h"
#include "simulator/tree_writer.h"

namespace rdmatop::sim {

struct SimulatorOptions {
  std::optional<double> interval_s;  ///< simulated seconds per tick; default: the scenario's
  double uptime_s = 3 * 86400.0;     ///< healthy history before the scenario starts
  bool loop = false;                 ///< restart the timeline after its last phase
};

class Simulator {
 public:
  /// Builds the host, plays `uptime_s` of healthy traffic and writes the first tree.
  static Result<std::unique_ptr<Simulator>> create(Scenario scenario, SimulatorOptions options = {},
                                                   std::unique_ptr<TreeWriter> writer = nullptr);

  /// One tick: advance simulated time by the interval under the current phase's conditions,
  /// start the next phase when due (reloads happen then), rewrite the tree.
  Result<bool> tick();

  /// Advances simulated time to `t_s` (seconds since the start) without writing the tree,
  /// splitting at phase boundaries so a phase starts at its exact time, not at the next tick:
  /// what the fast path samples between ticks. tick() advances the rest of its interval.
  void advance_to(double t_s);

  const Scenario& scenario() const { return scenario_; }
  const HostModel& host() const { return host_; }
  double interval_s() const { return interval_s_; }
  double elapsed_s() const { return elapsed_s_; }
  std::uint64_t ticks() const { return ticks_; }
  /// Name of the phase the last tick was in ("" before the first tick).
  const std::string& phase() const { return phase_name_; }
  /// True once the timeline has played every phase (and loop is off).
  bool finished() const;

  const std::string& root() const { return writer_->root(); }
  std::string sysfs_root() const { return root() + "/sys"; }
  std::string ethtool_dir() const { return root() + "/ethtool"; }

  /// Simulated clocks: the start time plus elapsed simulated time.
  std::chrono::steady_clock::time_point steady_now() const;
  std::chrono::system_clock::time_point wall_now() const;

  /// The conditions a port has during phase `phase` (defaults, baseline, phase overrides).
  PortConditions conditions_at(std::size_t phase, const PortState& port) const;

 private:
  Simulator(Scenario scenario, SimulatorOptions options, std::unique_ptr<TreeWriter> writer);
  Result<bool> write_tree();
  std::size_t phase_at(double t_s) const;
  /// Seconds since the start at which the phase holding `t_s` ends (looping timelines too).
  double phase_end(double t_s) const;
  double tick_start_s_ = 0;  ///< elapsed time at the start of the current tick

  Scenario scenario_;
  SimulatorOptions options_;
  std::unique_ptr<TreeWriter> writer_;
  HostModel host_;
  double interval_s_ = 5;
  double elapsed_s_ = 0;
  std::uint64_t ticks_ = 0;
  std::size_t phase_index_ = 0;
  bool started_ = false;
  std::string phase_name_;
  std::chrono::steady_clock::time_point steady_start_;
  std::chrono::system_clock::time_point wall_start_;
};

/// The hostname the simulated snapshots carry.
inline constexpr const char* kSimulatedHostname = "rdmatop-demo";

/// A provider for Monitor: each call ticks the simulator, runs collect_snapshot on its tree
/// (the real sysfs and ethtool-dump collectors), then stamps the snapshot with simulated time,
/// so rules with `for: 1m` fire after enough ticks rather than real minutes. Returns nullopt
/// when the timeline is over (unless looping) or the tree cannot be written. `sim` must
/// outlive the provider.
SnapshotProvider simulator_provider(Simulator& sim, DeviceFilter filter = {});

/// Called between ticks with the simulated wall time (unix microseconds): the fast path's poll.
using FastPollHook = std::function<void(std::int64_t unix_us)>;

/// The same, polling `hook` every `fast_interval_s` of simulated time within each tick and once
/// more at the tick's end before its snapshot is collected (onsets inside a tick are then
/// seen at their sub-tick time). A fast interval of 0, or not below the tick, polls once a tick.
SnapshotProvider simulator_provider(Simulator& sim, DeviceFilter filter, FastPollHook hook,
                                    double fast_interval_s);

/// Unix microseconds of a simulated wall time.
std::int64_t unix_us(std::chrono::system_clock::time_point t);

/// Loads a scenario by built-in name, or from a file when the name contains '/' or ends in
/// .yaml; "a,b,c" chains them into one timeline.
Result<Scenario> load_scenario(const std::string& spec);

}  // namespace rdmatop::sim
