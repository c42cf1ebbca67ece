// Detection latency of PFC storms, pushback and deadlocks: the simulator plays each timeline
// with an exact onset (at sub-tick offsets spread over a poll) through the real collectors,
// rules and PFC fast path, in simulated time (deterministic: no wall clock in the figures).
// Per scenario: onset-to-firing p50/p99 of the published finding, fire/resolve cycles per
// incident, false findings on the healthy and flap timelines; for the fast path at 10 Hz, the
// fast path polling once per 1 s tick (the TUI's default), and the 1-minute-window rules alone
// at the exporter's 5 s tick; next to the published figures of other detectors. Then the fast
// path's own cost for 16 ports at 10 Hz, next to the full tick.
//
//   rdmatop_bench_detection_latency [--onsets 20] [--rules-onsets 3]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "bench/synthetic_host.h"
#include "collector/normalize/normalizer.h"
#include "collector/source/ethtool_stats_reader.h"
#include "pipeline/fast_path.h"
#include "pipeline/monitor.h"
#include "rules/diagnoser.h"
#include "rules/fast/pfc_fast_detector.h"
#include "rules/rule_set.h"
#include "simulator/scenario.h"
#include "simulator/sim_sources.h"
#include "simulator/simulator.h"

using namespace rdmatop;

namespace {

struct Timeline {
  const char* name;
  const char* alert;  ///< expected finding; nullptr: none may fire (healthy, flap)
  const char* device;
  std::string incident_yaml;  ///< phases after the healthy lead-in (onset = its end)
  double incident_s;
};

std::string phase(const std::string& name, double seconds, const std::string& ports) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", seconds);
  return "  - name: " + name + "\n    duration: " + buf + "\n" +
         (ports.empty() ? "" : "    ports:\n" + ports);
}

std::vector<Timeline> timelines(double incident_s) {
  std::vector<Timeline> out;
  out.push_back({"storm", fast::kStormFromNic, "mlx5_0",
                 phase("storm", incident_s, "      mlx5_0/1: {tx_pause: 1, rx_delivery: 0.001}\n"),
                 incident_s});
  out.push_back({"pushback", fast::kPushback, "mlx5_1",
                 phase("pushback", incident_s,
                       "      mlx5_1/1: {load: 0.8, rx_pause: 0.7, ecn_marked: 0.005}\n"),
                 incident_s});
  out.push_back({"deadlock", fast::kDeadlock, "mlx5_0",
                 phase("deadlock", incident_s,
                       "      mlx5_0/1: {rx_pause: 1, tx_pause: 1, pause_lifts: false, "
                       "ack_timeouts_per_s: 20}\n"),
                 incident_s});
  std::string flap;
  for (int i = 0; i < 3; ++i) {
    flap += phase("down", 2, "      mlx5_1/1: {link: down}\n") + phase("up", 3, "");
  }
  out.push_back({"flap", nullptr, "mlx5_1", flap, 15});
  // Healthy but heavily paused: bursts of full pause both ways (60 ms) between lighter pause
  // (140 ms), traffic moving in every poll; 40% rx and ~40% tx occupancy on average.
  std::string heavy;
  const int bursts = static_cast<int>(incident_s / 0.2);
  for (int i = 0; i < bursts; ++i) {
    heavy += phase("burst", 0.06, "      mlx5_0/1: {rx_pause: 1, tx_pause: 0.9}\n") +
             phase("between", 0.14, "      mlx5_0/1: {rx_pause: 0.15, tx_pause: 0.2}\n");
  }
  out.push_back({"heavy-pause", nullptr, "mlx5_0", heavy, bursts * 0.2});
  return out;
}

bool is_pfc_alert(const std::string& rule) {
  return rule == fast::kStormFromNic || rule == fast::kPushback || rule == fast::kDeadlock ||
         rule == fast::kWatchdogError || rule == fast::kWatchdogWarning;
}

struct Outcome {
  double latency_s = -1;   ///< first publish with the expected finding firing; < 0: never
  int cycles = 0;          ///< transitions into firing of the expected finding
  int false_findings = 0;  ///< PFC findings firing that the timeline does not expect
};

/// Plays one timeline: `lead_s` of healthy traffic, the incident, 10 s of recovery.
Outcome play(const Timeline& t, double lead_s, double tick_s, double fast_s) {
  const std::string yaml =
      "name: bench-" + std::string(t.name) + "\ndescription: bench\ninterval: 5s\nphases:\n" +
      phase("healthy", lead_s, "") + t.incident_yaml + phase("recovery", 10, "");
  auto scenario = sim::parse_scenario(yaml, t.name);
  if (!scenario) {
    std::fprintf(stderr, "%s\n", scenario.error().message.c_str());
    std::exit(1);
  }
  sim::SimulatorOptions options;
  options.interval_s = tick_s;
  options.uptime_s = 3600;
  auto created = sim::Simulator::create(std::move(*scenario), options);
  if (!created) {
    std::fprintf(stderr, "%s\n", created.error().message.c_str());
    std::exit(1);
  }
  sim::Simulator& sim = **created;
  const double start_ms = static_cast<double>(unix_ms(sim.wall_now()));
  const double onset_ms = start_ms + lead_s * 1e3;
  Outcome out;
  bool was_firing = false;
  std::map<std::string, bool> false_seen;
  Monitor* monitor_ptr = nullptr;
  auto check = [&](const PublishedTick& report, double now_ms) {
    bool firing = false;
    for (const Finding& f : report.findings) {
      if (f.state != FindingState::firing || !is_pfc_alert(f.rule)) continue;
      const bool expected =
          t.alert != nullptr && f.rule == t.alert && label_value(f.labels, "device") == t.device;
      if (expected) {
        firing = true;
      } else {
        const std::string key = f.rule + "/" + label_value(f.labels, "device");
        if (!false_seen[key]) {
          ++out.false_findings;
          std::fprintf(stderr, "  (%s: unexpected %s %s at %+.0f ms)\n", t.name, f.rule.c_str(),
                       label_value(f.labels, "device").c_str(), now_ms - onset_ms);
        }
        false_seen[key] = true;
      }
    }
    if (firing && !was_firing) {
      ++out.cycles;
      if (out.latency_s < 0) out.latency_s = (now_ms - onset_ms) / 1e3;
    }
    was_firing = firing;
  };
  auto hook = [&](std::int64_t t_us) {
    if (monitor_ptr == nullptr) return;
    monitor_ptr->fast_poll(t_us);
    if (auto r = monitor_ptr->latest()) check(*r, static_cast<double>(t_us) / 1e3);
  };
  RuleSetLoad rules = load_rule_set({}, true);
  Monitor monitor(
      fast_s > 0 ? sim::simulator_provider(sim, {}, hook, fast_s) : sim::simulator_provider(sim),
      std::move(rules.groups));
  if (fast_s > 0) {
    FastPathOptions fast;
    fast.interval_s = fast_s;
    monitor.enable_fast_path(sim::make_simulated_live_ethtool_source(sim.host()), fast);
    monitor_ptr = &monitor;
  }
  while (auto report = monitor.step()) {
    check(*report, static_cast<double>(unix_ms(report->snapshot.wall)));
  }
  return out;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  // Nearest rank.
  const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size())));
  return v[std::clamp<std::size_t>(rank, 1, v.size()) - 1];
}

void run_config(const char* label, double tick_s, double fast_s, int onsets, double incident_s) {
  std::printf("\n%s\n", label);
  std::printf("  %-12s %9s %9s %7s %9s %7s\n", "timeline", "p50 ms", "p99 ms", "missed", "cycles",
              "false");
  for (const Timeline& t : timelines(incident_s)) {
    std::vector<double> latencies;
    int missed = 0, cycles = 0, falses = 0, incidents = 0;
    for (int i = 0; i < onsets; ++i) {
      // Onsets spread over one fast poll (or one tick when the fast path is off), offset
      // from the poll grid so that none falls on a poll.
      const double grid = fast_s > 0 ? fast_s : tick_s;
      const double lead = 20 + grid * (i + 0.5) / onsets;
      const Outcome o = play(t, lead, tick_s, fast_s);
      falses += o.false_findings;
      if (t.alert == nullptr) continue;
      ++incidents;
      cycles += o.cycles;
      if (o.latency_s < 0) {
        ++missed;
      } else {
        latencies.push_back(o.latency_s * 1e3);
      }
    }
    if (t.alert == nullptr) {
      std::printf("  %-12s %9s %9s %7s %9s %7d\n", t.name, "-", "-", "-", "-", falses);
    } else {
      std::printf("  %-12s %9.0f %9.0f %4d/%-2d %9.2f %7d\n", t.name, percentile(latencies, 0.5),
                  percentile(latencies, 0.99), missed, incidents,
                  incidents > 0 ? static_cast<double>(cycles) / incidents : 0.0, falses);
    }
  }
}

// ---- cost ---------------------------------------------------------------------------------

/// EthtoolStatsCalls over the synthetic host's ethtool maps, counting the kernel calls the
/// reader would make (GSSET_INFO, GSTRINGS, GSTATS).
class CountingCalls final : public EthtoolStatsCalls {
 public:
  explicit CountingCalls(const Snapshot& host) : host_(host) {}
  Result<std::uint32_t> count(const std::string& ifname) override {
    ++calls;
    return static_cast<std::uint32_t>(map(ifname).size());
  }
  Result<std::vector<std::string>> names(const std::string& ifname, std::uint32_t) override {
    ++calls;
    std::vector<std::string> out;
    for (const auto& [k, v] : map(ifname)) out.push_back(k);
    return out;
  }
  Result<std::vector<std::uint64_t>> values(const std::string& ifname, std::uint32_t) override {
    ++calls;
    std::vector<std::uint64_t> out;
    for (const auto& [k, v] : map(ifname)) out.push_back(v + tick);
    return out;
  }
  std::uint64_t calls = 0;
  std::uint64_t tick = 0;

 private:
  const CounterMap& map(const std::string& ifname) const {
    for (const NetdevSample& n : host_.netdevs) {
      if (n.name == ifname) return n.ethtool;
    }
    static const CounterMap empty;
    return empty;
  }
  const Snapshot& host_;
};

class CountingSource final : public EthtoolSource {
 public:
  explicit CountingSource(CountingCalls& calls) : reader_(calls) {}
  Result<CounterMap> stats(const std::string& ifname) override { return reader_.read(ifname); }
  Result<CounterMap> stats_subset(const std::string& ifname,
                                  const std::vector<std::string>& names) override {
    return reader_.read(ifname, names);
  }
  Result<DriverInfo> driver_info(const std::string&) override { return Error{EOPNOTSUPP, ""}; }
  Result<PauseInfo> pause(const std::string&) override { return Error{EOPNOTSUPP, ""}; }
  std::string describe() const override { return "bench"; }

 private:
  EthtoolStatsReader reader_;
};

void run_cost(int ports, double fast_hz, int seconds) {
  const bench::FixturePort fixture = bench::load_fixture_port();
  const Snapshot host = bench::synthetic_host(fixture, ports, 0);
  std::size_t sysfs_files = 0, ethtool_strings = 0;
  for (const DeviceSample& d : host.devices) {
    sysfs_files += d.hw_counters.size();
    for (const PortSample& p : d.ports) sysfs_files += p.hw_counters.size() + p.counters.size();
  }
  for (const NetdevSample& n : host.netdevs) ethtool_strings += n.ethtool.size();

  CountingCalls calls(host);
  CountingSource source(calls);
  FastPath fast(source, FastPathOptions{});
  const Observation observed = make_observation(host);
  fast.set_targets(host, observed.series);
  const int polls = static_cast<int>(fast_hz * seconds);
  std::int64_t t_us = 1'700'000'000'000'000;
  fast.poll(t_us);  // the first read fetches the names
  calls.calls = 0;
  const double cpu0 = bench::thread_cpu_ms();
  for (int i = 0; i < polls; ++i) {
    ++calls.tick;
    t_us += static_cast<std::int64_t>(1e6 / fast_hz);
    fast.poll(t_us);
  }
  const double fast_cpu_ms_per_s = (bench::thread_cpu_ms() - cpu0) / seconds;
  const double fast_calls_per_s = static_cast<double>(calls.calls) / seconds;

  // The full tick's userspace work on the same host: normalize + rules (the collectors' file
  // and ioctl reads are counted, not timed: they are the kernel's).
  RuleSetLoad rules = load_rule_set({}, true);
  Diagnoser diagnoser(std::move(rules.groups));
  const int ticks = 10;
  const double cpu1 = bench::thread_cpu_ms();
  for (int i = 0; i < ticks; ++i) {
    const Observation o = make_observation(bench::synthetic_host(fixture, ports, i * 5));
    diagnoser.observe(o.series, 1'700'000'000'000 + i * 5000);
  }
  const double full_cpu_ms = (bench::thread_cpu_ms() - cpu1) / ticks;
  // Per netdev: the stats read (GSSET_INFO + GSTATS, GSTRINGS every 10th), GDRVINFO,
  // GPAUSEPARAM, the genl pause request, GTUNABLE; per port every hw_counters/counters file.
  const double full_reads =
      static_cast<double>(ports) * (2 + 0.1 + 4) + static_cast<double>(sysfs_files);

  std::printf("\nCost, %d ports (mlx5 fixture port, %zu ethtool strings each)\n", ports,
              ethtool_strings / static_cast<std::size_t>(ports));
  std::printf(
      "  fast path at %.0f Hz: %.3f ms CPU per second (%.3f%% of a core), %.0f "
      "kernel reads/s (SIOCETHTOOL), %zu counters per port per poll\n",
      fast_hz, fast_cpu_ms_per_s, fast_cpu_ms_per_s / 10, fast_calls_per_s,
      fast.ports().empty() ? std::size_t{0} : fast.ports().front().counters);
  std::printf(
      "  full tick: %.2f ms CPU per tick (normalize + rules), >= %.0f kernel reads per "
      "tick (%zu sysfs counter files + ethtool)\n",
      full_cpu_ms, full_reads, sysfs_files);
}

}  // namespace

int main(int argc, char** argv) {
  int onsets = 20;
  int rules_onsets = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--onsets") {
      onsets = std::atoi(argv[i + 1]);
    } else if (flag == "--rules-onsets") {
      rules_onsets = std::atoi(argv[i + 1]);
    } else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  std::printf(
      "Onset to the first publish of the firing finding (simulated time; %d onsets per "
      "timeline spread over a poll)\n",
      onsets);
  run_config("fast path at 10 Hz (5 s tick)", 5, 0.1, onsets, 10);
  run_config("fast path at the 1 s default tick (TUI --interval 1, --fast-interval 1)", 1, 1,
             onsets, 10);
  run_config("1-minute-window rules alone, 5 s tick (exporter and report default)", 5, 0,
             rules_onsets, 300);
  std::printf(
      "\nPublished figures: mlx5 storm watchdog 100 ms (pfc-prevention-tout auto), "
      "Juniper PFC watchdog 200 ms, SONiC pfcwd 400 ms (default), Minder (NSDI'25) "
      "3.6 s average alert time\n");
  run_cost(16, 10, 20);
  return 0;
}
