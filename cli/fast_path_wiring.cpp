// The PFC fast path's wiring into the commands: the --fast-interval flag, a host's own ethtool
// source for it, and the simulator's sub-tick polls.
#include "cli/common_options.h"
#include "simulator/sim_sources.h"

namespace rdmatop {

void add_fast_path_option(CLI::App& command, double& interval_s) {
  command
      .add_option("--fast-interval", interval_s,
                  "PFC fast path: seconds between reads of the per-priority pause counters "
                  "(storm, pushback and deadlock detection in under a second); 0 turns it off")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 60.0));
}

void enable_host_fast_path(Monitor& monitor, const SourceOptions& options, double interval_s) {
  if (!(interval_s > 0)) return;
  FastPathOptions fast;
  fast.interval_s = interval_s;
  // Live only: offline dumps (--ethtool-dir, another --sysfs-root) do not change between
  // ticks, so there is nothing to poll.
  const bool live_host = options.sysfs_root == "/sys" || options.sysfs_root == "/sys/";
  if (options.ethtool_dir.empty() && live_host) {
    // Its own source: the ioctl source caches string sets and is not shared across threads.
    monitor.enable_fast_path(make_ioctl_ethtool_source(), fast);
  }
}

SimulatedFastPath::SimulatedFastPath(sim::Simulator& sim, double interval_s)
    : sim_(sim), interval_s_(interval_s) {}

SnapshotProvider SimulatedFastPath::provider(DeviceFilter filter) {
  if (!(interval_s_ > 0)) return sim::simulator_provider(sim_, std::move(filter));
  auto hook = [slot = monitor_](std::int64_t t_us) {
    if (*slot != nullptr) (*slot)->fast_poll(t_us);
  };
  return sim::simulator_provider(sim_, std::move(filter), hook, interval_s_);
}

void SimulatedFastPath::attach(Monitor& monitor) {
  if (!(interval_s_ > 0)) return;
  FastPathOptions fast;
  fast.interval_s = interval_s_;
  monitor.enable_fast_path(sim::make_simulated_live_ethtool_source(sim_.host()), fast);
  *monitor_ = &monitor;
}

}  // namespace rdmatop
