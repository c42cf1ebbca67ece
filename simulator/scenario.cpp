#include "simulator/scenario.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "collector/parse/procfs_process_parse.h"
#include "rules/promql/lexer.h"
#include "simulator/host_model.h"

namespace rdmatop::sim {

namespace {

Error error_at(const std::string& origin, const YAML::Node& node, const std::string& message) {
  // A missing key yields an invalid node, whose Mark() would throw: no position then.
  if (!node.IsDefined()) return Error{0, origin + ": " + message};
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return Error{0, origin + ": " + message};
  return Error{0, origin + ":" + std::to_string(mark.line + 1) + ":" +
                      std::to_string(mark.column + 1) + ": " + message};
}

// ------------------------------------------------------------------------------------------
// Scalars
// ------------------------------------------------------------------------------------------
Result<double> parse_number(const std::string& text) {
  if (text.empty()) return Error{0, "empty number"};
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return Error{0, "not a number: '" + text + "'"};
  }
  if (used != text.size() || !std::isfinite(value)) return Error{0, "not a number: '" + text + "'"};
  return value;
}

Result<bool> parse_bool(const std::string& text) {
  if (text == "true" || text == "on" || text == "up" || text == "yes") return true;
  if (text == "false" || text == "off" || text == "down" || text == "no") return false;
  return Error{0, "not a boolean: '" + text + "'"};
}

/// "30s", "2m", "1h30m" (Prometheus durations) or a plain number of seconds.
Result<double> parse_seconds(const std::string& text) {
  if (auto number = parse_number(text)) {
    if (*number < 0) return Error{0, "negative duration: '" + text + "'"};
    return *number;
  }
  const auto ms = promql::parse_duration(text);
  if (!ms) return Error{0, "bad duration '" + text + "': " + ms.error().message};
  return static_cast<double>(*ms) / 1000.0;
}

using Setter = std::function<Result<bool>(const std::string&, PortConditions&)>;

Setter fraction(double PortConditions::*field) {
  return [field](const std::string& text, PortConditions& c) -> Result<bool> {
    const auto v = parse_number(text);
    if (!v) return v.error();
    if (*v < 0 || *v > 1) return Error{0, "must be between 0 and 1: '" + text + "'"};
    c.*field = *v;
    return true;
  };
}

Setter rate(double PortConditions::*field) {
  return [field](const std::string& text, PortConditions& c) -> Result<bool> {
    const auto v = parse_number(text);
    if (!v) return v.error();
    if (*v < 0) return Error{0, "must not be negative: '" + text + "'"};
    c.*field = *v;
    return true;
  };
}

Setter flag(bool PortConditions::*field) {
  return [field](const std::string& text, PortConditions& c) -> Result<bool> {
    const auto v = parse_bool(text);
    if (!v) return v.error();
    c.*field = *v;
    return true;
  };
}

/// A whole number that `allowed` accepts; `what` says which in the error ("68..9216").
template <typename Int>
Setter integer(Int PortConditions::*field, bool (*allowed)(double), std::string what) {
  return [field, allowed, what](const std::string& text, PortConditions& c) -> Result<bool> {
    const auto v = parse_number(text);
    if (!v || std::floor(*v) != *v || !allowed(*v)) {
      return Error{0, "must be an integer " + what + ": '" + text + "'"};
    }
    c.*field = static_cast<Int>(*v);
    return true;
  };
}

/// A firmware version as devlink prints it: 1..31 printable characters without spaces (the
/// kernel's ethtool fw_version field is 32 bytes with the NUL).
Setter version(std::string PortConditions::*field) {
  return [field](const std::string& text, PortConditions& c) -> Result<bool> {
    const bool printable =
        std::all_of(text.begin(), text.end(), [](char ch) { return ch > ' ' && ch < 0x7f; });
    if (text.empty() || text.size() > 31 || !printable) {
      return Error{0, "a firmware version is 1..31 printable characters: '" + text + "'"};
    }
    c.*field = text;
    return true;
  };
}

// The knobs, documented one by one in docs/scenarios.md.
const std::map<std::string, Setter, std::less<>>& setters() {
  static const std::map<std::string, Setter, std::less<>> table = {
      {"load", fraction(&PortConditions::load)},
      {"rx_delivery", fraction(&PortConditions::rx_delivery)},
      {"tx_pause", fraction(&PortConditions::tx_pause)},
      {"rx_pause", fraction(&PortConditions::rx_pause)},
      {"pause_lifts", flag(&PortConditions::pause_lifts)},
      {"storm_warnings_per_min", rate(&PortConditions::storm_warnings_per_min)},
      {"storm_errors_per_min", rate(&PortConditions::storm_errors_per_min)},
      {"ecn_marked", fraction(&PortConditions::ecn_marked)},
      {"np_enabled", flag(&PortConditions::np_enabled)},
      {"rp_ignored", fraction(&PortConditions::rp_ignored)},
      {"loss", fraction(&PortConditions::loss)},
      {"ack_timeouts_per_s", rate(&PortConditions::ack_timeouts_per_s)},
      {"retry_exceeded_per_min", rate(&PortConditions::retry_exceeded_per_min)},
      {"rnr_retry_exceeded_per_min", rate(&PortConditions::rnr_retry_exceeded_per_min)},
      {"rnr_naks_received_per_s", rate(&PortConditions::rnr_naks_received_per_s)},
      {"out_of_buffer_per_s", rate(&PortConditions::out_of_buffer_per_s)},
      {"lossless_drops_per_s", rate(&PortConditions::lossless_drops_per_s)},
      {"link", flag(&PortConditions::link_up)},
      {"pre_fec_ber", fraction(&PortConditions::pre_fec_ber)},
      {"fec_lane_skew", fraction(&PortConditions::fec_lane_skew)},
      {"symbol_errors_per_s", rate(&PortConditions::symbol_errors_per_s)},
      {"crc_errors_per_s", rate(&PortConditions::crc_errors_per_s)},
      {"oversize_frames_per_s", rate(&PortConditions::oversize_frames_per_s)},
      {"routable_gid", flag(&PortConditions::routable_gid)},
      {"pfc", flag(&PortConditions::pfc)},
      {"global_pause", flag(&PortConditions::global_pause)},
      {"pcie_errors_per_s", rate(&PortConditions::pcie_errors_per_s)},
      {"pcie_stalled", fraction(&PortConditions::pcie_stalled)},
      {"pma_rcv_errors_per_s", rate(&PortConditions::pma_rcv_errors_per_s)},
      {"pma_xmit_discards_per_s", rate(&PortConditions::pma_xmit_discards_per_s)},
      {"pma_xmit_wait_per_s", rate(&PortConditions::pma_xmit_wait_per_s)},
      {"pma_link_recoveries_per_min", rate(&PortConditions::pma_link_recoveries_per_min)},
      {"pma_integrity_errors_per_min", rate(&PortConditions::pma_integrity_errors_per_min)},
      // 68 is the IPv4 minimum MTU; 9216 the usual jumbo maximum of RoCE NICs.
      {"mtu", integer(
                  &PortConditions::mtu, [](double v) { return v >= 68 && v <= 9216; }, "68..9216")},
      {"fw_running", version(&PortConditions::fw_running)},
      {"fw_stored", version(&PortConditions::fw_stored)},
      {"fw_errors_per_min", rate(&PortConditions::fw_errors_per_min)},
      {"fw_fatal_errors_per_min", rate(&PortConditions::fw_fatal_errors_per_min)},
      {"health_recovers", flag(&PortConditions::health_recovers)},
      {"devlink", flag(&PortConditions::devlink)},
      // mlx5 set_pfc_prevention_tout: at most 8000 ms, or 65535 (PFC_STORM_PREVENTION_AUTO);
      // 0 disables (en_ethtool.c; docs/domain.md#storm-prevention).
      {"pfc_storm_prevention_ms",
       integer(
           &PortConditions::pfc_storm_prevention_ms,
           [](double v) { return (v >= 0 && v <= 8000) || v == 65535; }, "0..8000 or 65535")},
  };
  return table;
}

// ------------------------------------------------------------------------------------------
// Structure
// ------------------------------------------------------------------------------------------
Result<std::string> scalar(const std::string& origin, const YAML::Node& node,
                           const std::string& what) {
  if (!node || !node.IsScalar()) return error_at(origin, node, what + " must be a scalar");
  return node.Scalar();
}

Result<bool> check_keys(const std::string& origin, const YAML::Node& map,
                        std::initializer_list<std::string_view> allowed, const std::string& what) {
  if (!map.IsMap()) return error_at(origin, map, what + " must be a mapping");
  for (const auto& item : map) {
    const std::string key = item.first.Scalar();
    bool known = false;
    for (const auto a : allowed) known = known || a == key;
    if (!known) return error_at(origin, item.first, "unknown key '" + key + "' in " + what);
  }
  return true;
}

/// A non-negative integer no larger than `max`.
Result<std::uint64_t> parse_count(const std::string& origin, const YAML::Node& node,
                                  const std::string& what, double max) {
  const auto v = parse_number(node.IsScalar() ? node.Scalar() : "");
  if (!v || *v < 0 || *v > max || std::floor(*v) != *v) {
    return error_at(origin, node,
                    what + " must be an integer 0.." + std::to_string(static_cast<long long>(max)));
  }
  return static_cast<std::uint64_t>(*v);
}

Result<std::vector<PortOverride>> parse_ports(const std::string& origin, const YAML::Node& node) {
  std::vector<PortOverride> out;
  if (!node) return out;
  if (!node.IsMap()) return error_at(origin, node, "ports must map selectors to settings");
  for (const auto& item : node) {
    PortOverride po;
    po.selector = item.first.Scalar();
    if (po.selector.empty()) return error_at(origin, item.first, "empty port selector");
    if (!item.second.IsMap()) return error_at(origin, item.second, "port settings must be a map");
    for (const auto& kv : item.second) {
      auto value = scalar(origin, kv.second, "setting '" + kv.first.Scalar() + "'");
      if (!value) return value.error();
      po.settings.emplace_back(kv.first.Scalar(), *value);
    }
    // Validate now, so a typo is reported with its line rather than at play time.
    PortConditions probe;
    if (auto ok = apply_settings(po, probe); !ok)
      return error_at(origin, item.first, ok.error().message);
    out.push_back(std::move(po));
  }
  return out;
}

Result<Phase> parse_phase(const std::string& origin, const YAML::Node& node) {
  if (auto ok = check_keys(origin, node, {"name", "duration", "ports", "reload"}, "phase"); !ok) {
    return ok.error();
  }
  Phase phase;
  if (node["name"]) {
    auto name = scalar(origin, node["name"], "name");
    if (!name) return name.error();
    phase.name = *name;
  }
  auto duration = scalar(origin, node["duration"], "phase duration");
  if (!duration) return error_at(origin, node, "phase needs a duration");
  auto seconds = parse_seconds(*duration);
  if (!seconds) return error_at(origin, node["duration"], seconds.error().message);
  if (*seconds <= 0) return error_at(origin, node["duration"], "phase duration must be positive");
  phase.duration_s = *seconds;
  auto ports = parse_ports(origin, node["ports"]);
  if (!ports) return ports.error();
  phase.ports = std::move(*ports);
  if (const YAML::Node reload = node["reload"]) {
    if (!reload.IsSequence()) return error_at(origin, reload, "reload must be a list of devices");
    for (const auto& dev : reload) {
      auto name = scalar(origin, dev, "reload entry");
      if (!name) return name.error();
      phase.reload.push_back(*name);
    }
  }
  return phase;
}

Result<Expectation> parse_expectation(const std::string& origin, const YAML::Node& node) {
  if (auto ok = check_keys(origin, node,
                           {"alert", "device", "pid", "port", "priority", "target", "within_ticks"},
                           "expect entry");
      !ok) {
    return ok.error();
  }
  Expectation e;
  auto alert = scalar(origin, node["alert"], "alert");
  auto device = scalar(origin, node["device"], "device");
  auto within = scalar(origin, node["within_ticks"], "within_ticks");
  // A probe alert is about a target, not a port: `target` replaces `device`.
  auto target = node["target"] ? scalar(origin, node["target"], "target") : Result<std::string>{""};
  // A process alert is about a pid; some (the memlock ones) have no device label.
  if (!alert || !within || !target || (!device && target->empty() && !node["pid"])) {
    return error_at(origin, node,
                    "expect entry needs alert, device and within_ticks (target instead of device "
                    "for a probe alert, pid for a process alert)");
  }
  e.alert = *alert;
  if (device) e.device = *device;
  e.target = *target;
  const auto ticks = parse_number(*within);
  // Bounded like `demo --ticks`: an int held it, and 3e9 overflowed it.
  if (!ticks || *ticks < 1 || *ticks > kMaxWithinTicks || std::floor(*ticks) != *ticks) {
    return error_at(
        origin, node["within_ticks"],
        "within_ticks must be a positive integer up to " + std::to_string(kMaxWithinTicks));
  }
  e.within_ticks = static_cast<int>(*ticks);
  if (node["port"]) {  // absent: a device-level alert such as the firmware ones
    const auto port = parse_number(node["port"].Scalar());
    // RDMA port numbers are a u8 in the kernel (ib_device's port loop, rdma_end_port); an
    // unbounded double cast to u32 was undefined (found by fuzz/scenario_fuzz.cpp).
    if (!port || *port < 1 || *port > 255 || std::floor(*port) != *port) {
      return error_at(origin, node["port"], "port must be an integer from 1 to 255");
    }
    e.port = static_cast<std::uint32_t>(*port);
  }
  if (node["pid"]) {
    auto pid = parse_count(origin, node["pid"], "pid", 4194304);
    if (!pid) return pid.error();
    e.pid = static_cast<std::uint32_t>(*pid);
  }
  if (node["priority"]) {
    const auto prio = parse_number(node["priority"].Scalar());
    if (!prio || *prio < 0 || *prio > 7 || std::floor(*prio) != *prio) {
      return error_at(origin, node["priority"], "priority must be 0..7");
    }
    e.priority = static_cast<int>(*prio);
  }
  return e;
}

Result<std::vector<std::string>> parse_names(const std::string& origin, const YAML::Node& node,
                                             const std::string& what) {
  std::vector<std::string> out;
  if (!node) return out;
  if (!node.IsSequence()) return error_at(origin, node, what + " must be a list");
  for (const auto& item : node) {
    auto name = scalar(origin, item, what + " entry");
    if (!name) return name.error();
    if (name->empty()) return error_at(origin, item, "empty " + what + " entry");
    out.push_back(*name);
  }
  return out;
}

Result<std::vector<StartCounter>> parse_start(const std::string& origin, const YAML::Node& node) {
  std::vector<StartCounter> out;
  if (!node) return out;
  if (!node.IsMap()) return error_at(origin, node, "start must map selectors to counters");
  for (const auto& item : node) {
    if (!item.second.IsMap()) return error_at(origin, item.second, "start counters: a map");
    for (const auto& kv : item.second) {
      const std::string counter = kv.first.Scalar();
      const auto& names = model_counter_names();
      if (std::find(names.begin(), names.end(), counter) == names.end()) {
        return error_at(origin, kv.first, "unknown model counter '" + counter + "'");
      }
      const auto value = parse_number(kv.second.IsScalar() ? kv.second.Scalar() : "");
      if (!value || *value < 0) return error_at(origin, kv.second, "counter start must be >= 0");
      out.push_back(StartCounter{item.first.Scalar(), counter, *value});
    }
  }
  return out;
}

Result<SimProcess> parse_process(const std::string& origin, const YAML::Node& node,
                                 const std::vector<std::string>& host_devices) {
  if (auto ok = check_keys(origin, node,
                           {"pid", "comm", "devices", "qps", "cqs", "mrs", "pds", "memlock",
                            "cap_ipc_lock", "pinned", "cpus", "counter_share"},
                           "process");
      !ok) {
    return ok.error();
  }
  SimProcess p;
  if (!node["pid"]) return error_at(origin, node, "process needs a pid");
  // PID_MAX_LIMIT (include/linux/threads.h): 4194304 on 64-bit.
  auto pid = parse_count(origin, node["pid"], "pid", 4194304);
  if (!pid || *pid == 0) return error_at(origin, node["pid"], "pid must be an integer 1..4194304");
  p.pid = static_cast<std::uint32_t>(*pid);
  auto comm = scalar(origin, node["comm"], "comm");
  if (!comm) return error_at(origin, node, "process needs a comm");
  const bool printable =
      std::all_of(comm->begin(), comm->end(), [](char ch) { return ch >= ' ' && ch < 0x7f; });
  // TASK_COMM_LEN is 16 with the NUL.
  if (comm->empty() || comm->size() > 15 || !printable) {
    return error_at(origin, node["comm"], "comm is 1..15 printable characters");
  }
  p.comm = *comm;
  auto devices = parse_names(origin, node["devices"], "devices");
  if (!devices) return devices.error();
  if (devices->empty()) return error_at(origin, node, "process needs a list of devices");
  for (std::size_t i = 0; i < devices->size(); ++i) {
    if (std::find(host_devices.begin(), host_devices.end(), (*devices)[i]) == host_devices.end()) {
      return error_at(origin, node["devices"][i],
                      "no simulated RDMA device '" + (*devices)[i] + "'");
    }
  }
  p.devices = std::move(*devices);
  // Objects per device: bounded so that the rendered dumps stay small.
  for (auto [key, field] :
       {std::pair{"qps", &SimProcess::qps}, std::pair{"cqs", &SimProcess::cqs},
        std::pair{"mrs", &SimProcess::mrs}, std::pair{"pds", &SimProcess::pds}}) {
    if (!node[key]) continue;
    auto n = parse_count(origin, node[key], key, 1024);
    if (!n) return n.error();
    p.*field = static_cast<std::uint32_t>(*n);
  }
  if (node["memlock"]) {
    if (node["memlock"].IsScalar() && node["memlock"].Scalar() == "unlimited") {
      p.memlock_bytes.reset();
    } else {
      auto bytes = parse_count(origin, node["memlock"], "memlock (bytes or unlimited)", 1e15);
      if (!bytes) return bytes.error();
      p.memlock_bytes = *bytes;
    }
  }
  if (node["cap_ipc_lock"]) {
    const auto cap =
        parse_bool(node["cap_ipc_lock"].IsScalar() ? node["cap_ipc_lock"].Scalar() : "");
    if (!cap) return error_at(origin, node["cap_ipc_lock"], cap.error().message);
    p.cap_ipc_lock = *cap;
  }
  if (node["pinned"]) {
    auto bytes = parse_count(origin, node["pinned"], "pinned (bytes)", 1e15);
    if (!bytes) return bytes.error();
    // pinned_vm counts pages (4 KiB on x86-64).
    if (*bytes % 4096 != 0)
      return error_at(origin, node["pinned"], "pinned must be whole 4 KiB pages");
    p.pinned_bytes = *bytes;
  }
  if (node["cpus"]) {
    auto cpus = scalar(origin, node["cpus"], "cpus");
    if (!cpus) return cpus.error();
    const auto list = parse_cpu_list(*cpus);
    if (!list || list->empty() || list->back() >= kNumaNodes * kCpusPerNode) {
      return error_at(origin, node["cpus"],
                      "cpus must be a CPU list (\"0-7,16\") of the host's CPUs 0-" +
                          std::to_string(kNumaNodes * kCpusPerNode - 1));
    }
    p.cpus = *cpus;
  }
  if (node["counter_share"]) {
    auto text = scalar(origin, node["counter_share"], "counter_share");
    if (!text) return text.error();
    auto share = parse_number(*text);
    if (!share || *share <= 0 || *share > 1) {
      return error_at(origin, node["counter_share"], "counter_share must be a number in (0, 1]");
    }
    // Only mlx5 binds QPs to counters (counter_bind_qp); rxe and bnxt_re cannot.
    for (const std::string& device : p.devices) {
      if (!device.starts_with("mlx5_")) {
        return error_at(origin, node["counter_share"],
                        device + " cannot bind QP counters (only mlx5 devices can)");
      }
    }
    p.counter_share = *share;
  }
  return p;
}

Result<std::vector<SimProcess>> parse_processes(const std::string& origin, const YAML::Node& node,
                                                const std::vector<std::string>& nics) {
  std::vector<SimProcess> out;
  if (!node) return out;
  if (!node.IsSequence()) return error_at(origin, node, "processes must be a list");
  Scenario host_of;
  host_of.nics = nics;
  std::vector<std::string> devices;
  for (const PortSpec& spec : scenario_host(host_of)) devices.push_back(spec.device);
  for (const auto& item : node) {
    auto p = parse_process(origin, item, devices);
    if (!p) return p.error();
    for (const SimProcess& other : out) {
      if (other.pid == p->pid) return error_at(origin, item["pid"], "pid used twice");
    }
    out.push_back(std::move(*p));
  }
  for (const std::string& device : devices) {
    double shares = 0;
    for (const SimProcess& p : out) {
      if (std::find(p.devices.begin(), p.devices.end(), device) != p.devices.end()) {
        shares += p.counter_share;
      }
    }
    if (shares > 1) return error_at(origin, node, "counter_share on " + device + " adds up to > 1");
  }
  return out;
}

Result<Scenario> parse_root(const std::string& origin, const YAML::Node& root) {
  if (auto ok =
          check_keys(origin, root,
                     {"name", "description", "interval", "nics", "baseline", "start", "processes",
                      "phases", "expect", "expect_quiet", "expect_not", "expect_quiet_pids"},
                     "scenario");
      !ok) {
    return ok.error();
  }
  Scenario s;
  auto name = scalar(origin, root["name"], "name");
  auto description = scalar(origin, root["description"], "description");
  if (!name || name->empty()) return error_at(origin, root, "scenario needs a name");
  if (!description) return error_at(origin, root, "scenario needs a one-line description");
  s.name = *name;
  s.description = *description;
  if (root["interval"]) {
    auto interval = parse_seconds(root["interval"].Scalar());
    if (!interval || *interval <= 0) {
      return error_at(origin, root["interval"], "interval must be a positive duration");
    }
    s.interval_s = *interval;
  }
  auto nics = parse_names(origin, root["nics"], "nics");
  if (!nics) return nics.error();
  for (std::size_t i = 0; i < nics->size(); ++i) {
    if (find_extra_nic((*nics)[i]) == nullptr) {
      return error_at(
          origin, root["nics"][i],
          "unknown NIC '" + (*nics)[i] + "' (docs/scenarios.md lists the optional NICs)");
    }
  }
  s.nics = std::move(*nics);
  auto processes = parse_processes(origin, root["processes"], s.nics);
  if (!processes) return processes.error();
  s.processes = std::move(*processes);
  auto baseline = parse_ports(origin, root["baseline"]);
  if (!baseline) return baseline.error();
  s.baseline = std::move(*baseline);
  auto start = parse_start(origin, root["start"]);
  if (!start) return start.error();
  s.start = std::move(*start);
  const YAML::Node phases = root["phases"];
  if (!phases || !phases.IsSequence() || phases.size() == 0) {
    return error_at(origin, root, "scenario needs a non-empty list of phases");
  }
  for (const auto& node : phases) {
    auto phase = parse_phase(origin, node);
    if (!phase) return phase.error();
    s.phases.push_back(std::move(*phase));
  }
  if (const YAML::Node expect = root["expect"]) {
    if (!expect.IsSequence()) return error_at(origin, expect, "expect must be a list");
    for (const auto& node : expect) {
      auto e = parse_expectation(origin, node);
      if (!e) return e.error();
      s.expect.push_back(std::move(*e));
    }
  }
  if (root["expect_quiet"]) {
    const auto quiet = parse_bool(root["expect_quiet"].Scalar());
    if (!quiet) return error_at(origin, root["expect_quiet"], quiet.error().message);
    s.expect_quiet = *quiet;
  }
  auto expect_not = parse_names(origin, root["expect_not"], "expect_not");
  if (!expect_not) return expect_not.error();
  s.expect_not = std::move(*expect_not);
  if (const YAML::Node quiet = root["expect_quiet_pids"]) {
    if (!quiet.IsSequence()) return error_at(origin, quiet, "expect_quiet_pids must be a list");
    for (const auto& item : quiet) {
      auto pid = parse_count(origin, item, "expect_quiet_pids entry", 4194304);
      if (!pid) return pid.error();
      const bool known = std::any_of(s.processes.begin(), s.processes.end(),
                                     [&](const SimProcess& p) { return p.pid == *pid; });
      if (!known)
        return error_at(origin, item, "expect_quiet_pids names no process of the scenario");
      s.expect_quiet_pids.push_back(static_cast<std::uint32_t>(*pid));
    }
  }
  return s;
}

}  // namespace

double Scenario::duration_s() const {
  double total = 0;
  for (const Phase& p : phases) total += p.duration_s;
  return total;
}

Result<Scenario> parse_scenario(const std::string& text, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Error{0, origin + ":" + std::to_string(e.mark.line + 1) + ":" +
                        std::to_string(e.mark.column + 1) + ": " + e.msg};
  }
  if (!root || root.IsNull()) return Error{0, origin + ": empty scenario file"};
  try {
    return parse_root(origin, root);
  } catch (const YAML::Exception& e) {
    return Error{0, origin + ": " + e.msg};
  }
}

Result<bool> apply_settings(const PortOverride& override_, PortConditions& conditions) {
  for (const auto& [key, value] : override_.settings) {
    const auto it = setters().find(key);
    if (it == setters().end()) return Error{0, "unknown port setting '" + key + "'"};
    if (auto ok = it->second(value, conditions); !ok) {
      return Error{0, key + ": " + ok.error().message};
    }
  }
  return true;
}

bool selector_matches(const std::string& selector, const std::string& device, std::uint32_t port) {
  return selector == "*" || selector == device || selector == device + "/" + std::to_string(port);
}

Scenario chain_scenarios(const std::vector<Scenario>& parts) {
  Scenario out;
  for (const Scenario& part : parts) {
    if (!out.name.empty()) {
      out.name += ',';
      out.description += "; then ";
    } else {
      out.interval_s = part.interval_s;
      out.start = part.start;
    }
    out.name += part.name;
    out.description += part.description;
    for (const SimProcess& p : part.processes) {
      const bool known = std::any_of(out.processes.begin(), out.processes.end(),
                                     [&](const SimProcess& q) { return q.pid == p.pid; });
      if (!known) out.processes.push_back(p);
    }
    for (const std::string& nic : part.nics) {
      if (std::find(out.nics.begin(), out.nics.end(), nic) == out.nics.end()) {
        out.nics.push_back(nic);
      }
    }
    for (Phase phase : part.phases) {
      // A part's baseline belongs to its own phases only.
      phase.ports.insert(phase.ports.begin(), part.baseline.begin(), part.baseline.end());
      phase.name = part.name + ": " + phase.name;
      out.phases.push_back(std::move(phase));
    }
  }
  return out;
}

const std::vector<std::string>& model_counter_names() {
  // The simulator's own per-port accumulators (simulator/host_model.h), rendered
  // into each driver's names by tree_render.cpp.
  static const std::vector<std::string> names = {
      "rdma_tx_bytes",
      "rdma_rx_bytes",
      "rdma_tx_packets",
      "rdma_rx_packets",
      "eth_tx_bytes",
      "eth_rx_bytes",
      "eth_tx_packets",
      "eth_rx_packets",
      "tx_pause_frames",
      "tx_pause_us",
      "tx_pause_transitions",
      "rx_pause_frames",
      "rx_pause_us",
      "rx_pause_transitions",
      "storm_warnings",
      "storm_errors",
      "ecn_marked",
      "cnp_sent",
      "cnp_handled",
      "cnp_ignored",
      "ack_timeouts",
      "seq_err_naks",
      "out_of_sequence",
      "duplicate_requests",
      "implied_naks",
      "retry_exceeded",
      "rnr_retry_exceeded",
      "rnr_naks_received",
      "out_of_buffer",
      "rx_write_requests",
      "rx_read_requests",
      "lossless_drops",
      "link_down_events",
      "carrier_changes",
      "rx_bits",
      "fec_corrected_bits",
      "symbol_errors",
      "crc_errors",
      "oversize_frames",
      "retransmits",
      "fw_errors",
      "fw_recovers",
      "fw_fatal_errors",
      "fw_fatal_recovers",
      "fec_lane0_corrected_bits",
      "tx_global_pause_frames",
      "tx_global_pause_us",
      "rx_global_pause_frames",
      "rx_global_pause_us",
      "pcie_signal_errors",
      "pcie_stalled_rd_s",
      "pma_rcv_errors",
      "pma_xmit_discards",
      "pma_xmit_wait",
      "pma_link_recoveries",
      "pma_integrity_errors",
  };
  return names;
}

}  // namespace rdmatop::sim
