#include "simulator/simulator.h"

#include <cmath>
#include <limits>
#include <memory>

#include "rules/rule_set.h"
#include "simulator/builtin_scenarios.h"
#include "simulator/probe_model.h"
#include "simulator/process_render.h"
#include "simulator/sim_sources.h"

namespace rdmatop::sim {

namespace {

template <class Duration>
Duration seconds_as(double s) {
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(s));
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parts;
}

}  // namespace

Simulator::Simulator(Scenario scenario, SimulatorOptions options,
                     std::unique_ptr<TreeWriter> writer)
    : scenario_(std::move(scenario)),
      options_(options),
      writer_(std::move(writer)),
      host_(make_host_model(scenario_host(scenario_))),
      interval_s_(options.interval_s.value_or(scenario_.interval_s)),
      steady_start_(std::chrono::steady_clock::now()),
      wall_start_(std::chrono::system_clock::now()) {}

Result<std::unique_ptr<Simulator>> Simulator::create(Scenario scenario, SimulatorOptions options,
                                                     std::unique_ptr<TreeWriter> writer) {
  if (scenario.phases.empty()) return Error{0, scenario.name + ": no phases to play"};
  if (options.interval_s && !(*options.interval_s > 0)) {
    return Error{0, "the tick interval must be positive"};
  }
  // Every override is checked before anything runs, so a bad selector fails here, not later.
  const std::vector<PortState> ports = make_host_model(scenario_host(scenario)).ports;
  for (const std::string& nic : scenario.nics) {
    if (find_extra_nic(nic) == nullptr)
      return Error{0, scenario.name + ": unknown NIC '" + nic + "'"};
  }
  auto check = [&](const std::vector<PortOverride>& list) -> Result<bool> {
    for (const PortOverride& o : list) {
      bool matched = false;
      for (const PortState& p : ports) {
        matched = matched || selector_matches(o.selector, p.spec.device, p.spec.port);
      }
      if (!matched)
        return Error{0, scenario.name + ": no simulated port matches '" + o.selector + "'"};
      PortConditions probe;
      if (auto ok = apply_settings(o, probe); !ok) return ok.error();
    }
    return true;
  };
  if (auto ok = check(scenario.baseline); !ok) return ok.error();
  for (const Phase& phase : scenario.phases) {
    if (auto ok = check(phase.ports); !ok) return ok.error();
  }
  if (!writer) {
    auto made = make_temp_tree_writer();
    if (!made) return made.error();
    writer = std::move(made.value());
  }
  std::unique_ptr<Simulator> sim(new Simulator(std::move(scenario), options, std::move(writer)));
  sim->host_.processes = sim->scenario_.processes;
  // Days of healthy traffic first, so counters carry realistic totals, then the scenario's
  // chosen starting values (e.g. a 32-bit counter just below its wrap).
  advance(sim->host_, options.uptime_s);
  sim->host_.elapsed_s = 0;
  for (const StartCounter& start : sim->scenario_.start) {
    for (PortState& p : sim->host_.ports) {
      if (selector_matches(start.selector, p.spec.device, p.spec.port)) {
        p.counters[start.counter] = start.value;
      }
    }
  }
  if (auto ok = sim->write_tree(); !ok) return ok.error();
  return sim;
}

PortConditions Simulator::conditions_at(std::size_t phase, const PortState& port) const {
  PortConditions c;
  auto apply = [&](const std::vector<PortOverride>& list) {
    for (const PortOverride& o : list) {
      // Validated in create(): apply_settings cannot fail here.
      if (selector_matches(o.selector, port.spec.device, port.spec.port)) apply_settings(o, c);
    }
  };
  apply(scenario_.baseline);
  apply(scenario_.phases.at(phase).ports);
  return c;
}

std::size_t Simulator::phase_at(double t_s) const {
  const double total = scenario_.duration_s();
  if (options_.loop && t_s >= total) t_s = std::fmod(t_s, total);
  double end = 0;
  for (std::size_t i = 0; i < scenario_.phases.size(); ++i) {
    end += scenario_.phases[i].duration_s;
    if (t_s < end) return i;
  }
  return scenario_.phases.size() - 1;  // after the end the last phase's conditions hold
}

bool Simulator::finished() const {
  // A small tolerance so that 60 s at 5 s per tick is 12 ticks despite rounding.
  return !options_.loop && elapsed_s_ >= scenario_.duration_s() - 1e-9;
}

double Simulator::phase_end(double t_s) const {
  const double total = scenario_.duration_s();
  double base = 0;
  if (options_.loop && total > 0 && t_s >= total) base = std::floor(t_s / total) * total;
  double end = base;
  for (const Phase& phase : scenario_.phases) {
    end += phase.duration_s;
    if (t_s < end) return end;
  }
  return std::numeric_limits<double>::infinity();  // the last phase holds after the end
}

void Simulator::advance_to(double t_s) {
  while (elapsed_s_ < t_s) {
    const std::size_t phase = phase_at(elapsed_s_);
    if (!started_ || phase != phase_index_) {
      started_ = true;
      phase_index_ = phase;
      for (const std::string& device : scenario_.phases[phase].reload) {
        reload_driver(host_, device);
      }
    }
    std::vector<PortConditions> conditions;
    for (const PortState& p : host_.ports) conditions.push_back(conditions_at(phase, p));
    set_conditions(host_, conditions);
    // Up to the phase's end; a boundary closer than float noise is not a step of its own.
    double until = std::min(t_s, phase_end(elapsed_s_));
    if (until - elapsed_s_ < 1e-9) until = t_s;
    const double step = until - elapsed_s_;
    advance(host_, step);
    elapsed_s_ = until;
  }
}

Result<bool> Simulator::tick() {
  phase_name_ = scenario_.phases[phase_at(tick_start_s_)].name;
  advance_to(tick_start_s_ + interval_s_);
  // The probe streams advance once per tick: their `window` is what the prober answered since
  // its previous sample, one tick (probe_model.h), whatever polls happened inside it.
  advance_probes(host_, elapsed_s_ - tick_start_s_);
  tick_start_s_ = elapsed_s_;
  ++ticks_;
  return write_tree();
}

Result<bool> Simulator::write_tree() {
  TreeImage image = render_host(host_);
  render_processes(host_, image);
  return writer_->apply(image);
}

std::chrono::steady_clock::time_point Simulator::steady_now() const {
  return steady_start_ + seconds_as<std::chrono::steady_clock::duration>(elapsed_s_);
}

std::chrono::system_clock::time_point Simulator::wall_now() const {
  return wall_start_ + seconds_as<std::chrono::system_clock::duration>(elapsed_s_);
}

std::int64_t unix_us(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

SnapshotProvider simulator_provider(Simulator& sim, DeviceFilter filter) {
  return simulator_provider(sim, std::move(filter), {}, 0);
}

SnapshotProvider simulator_provider(Simulator& sim, DeviceFilter filter, FastPollHook hook,
                                    double fast_interval_s) {
  std::shared_ptr<const FileSource> sysfs = make_directory_file_source(sim.sysfs_root());
  std::shared_ptr<EthtoolSource> ethtool =
      make_simulated_ethtool_source(make_dump_ethtool_source(sim.ethtool_dir()), sim.host());
  // devlink is netlink, not files: the simulated kernel's reply bytes go through the real
  // parser and collect_devlink (sim_sources.h).
  std::shared_ptr<DevlinkSource> devlink = make_simulated_devlink_source(sim.host());
  // DCB (rtnetlink dcbnl) likewise: reply bytes through the real parser and collect_dcb.
  std::shared_ptr<DcbSource> dcb = make_simulated_dcb_source(sim.host());
  // The processes holding RDMA objects come from RDMA netlink resource dumps (rendered like the
  // kernel's, nldev_render.h) and procfs files in the tree, read by the real process collector.
  // Only a scenario with `processes:` has them: the others keep the host they always had.
  std::shared_ptr<const FileSource> procfs;
  std::shared_ptr<RdmaNetlinkSource> netlink;
  if (!sim.host().processes.empty()) {
    procfs = make_directory_file_source(sim.root() + "/proc");
    netlink = make_simulated_rdma_netlink_source(sim.host());
  }
  return [&sim, sysfs, ethtool, devlink, dcb, procfs, netlink, filter, hook,
          fast_interval_s](std::uint64_t seq) -> std::optional<Snapshot> {
    if (sim.finished()) return std::nullopt;
    if (hook && fast_interval_s > 0 && fast_interval_s < sim.interval_s()) {
      // Whole fast intervals inside the tick (the last one may be shorter), counted from the
      // tick's start so that float sums do not drift across a long timeline.
      const double start = sim.elapsed_s();
      const auto polls = static_cast<int>(std::ceil(sim.interval_s() / fast_interval_s - 1e-9));
      for (int i = 1; i < polls; ++i) {
        sim.advance_to(start + i * fast_interval_s);
        hook(unix_us(sim.wall_now()));
      }
    }
    if (!sim.tick()) return std::nullopt;
    if (hook) hook(unix_us(sim.wall_now()));
    CollectContext ctx{*sysfs, *ethtool, filter};
    ctx.devlink = devlink.get();
    ctx.dcb = dcb.get();
    ctx.procfs = procfs.get();
    ctx.netlink = netlink.get();
    Snapshot snap = collect_snapshot(ctx, seq);
    snap.taken = sim.steady_now();
    snap.wall = sim.wall_now();
    snap.hostname = kSimulatedHostname;
    // A prober is a process, not a file in the tree: its results are the model's (probe_model.h).
    snap.probes = simulated_probes(sim.host());
    snap.prober = simulated_prober_cost(sim.host());
    return snap;
  };
}

Result<Scenario> load_scenario(const std::string& spec) {
  std::vector<Scenario> parts;
  for (const std::string& name : split_commas(spec)) {
    if (name.empty()) return Error{0, "empty scenario name in '" + spec + "'"};
    const bool is_file = name.find('/') != std::string::npos ||
                         (name.size() > 5 && name.compare(name.size() - 5, 5, ".yaml") == 0);
    if (is_file) {
      auto text = read_text_file(name);
      if (!text) return text.error();
      auto parsed = parse_scenario(*text, name);
      if (!parsed) return parsed.error();
      parts.push_back(std::move(*parsed));
    } else if (const Scenario* builtin = find_builtin_scenario(name)) {
      parts.push_back(*builtin);
    } else {
      return Error{0, "unknown scenario '" + name + "' (rdmatop demo --list shows them)"};
    }
  }
  if (parts.size() == 1) return std::move(parts.front());
  return chain_scenarios(parts);
}

}  // namespace rdmatop::sim
