#include "recording/snapshot_json.h"

#include "present/host_config_json.h"
#include "present/json_util.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace rdmatop {

namespace {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

// ---- encoding -------------------------------------------------------------------------------

ojson port_json(const PortSample& port) {
  ojson optional_counters = ojson::object();
  for (const auto& [name, enabled] : port.optional_counters) optional_counters[name] = enabled;
  ojson gids = ojson::array();
  for (const auto& g : port.gids) {
    gids.push_back({{"index", g.index}, {"gid", g.gid}, {"type", g.type}, {"netdev", g.netdev}});
  }
  ojson out = {{"port", port.port},
               {"state_id", optional_json(port.state_id)},
               {"state", port.state},
               {"phys_state_id", optional_json(port.phys_state_id)},
               {"phys_state", port.phys_state},
               {"rate_text", port.rate_text},
               {"rate_gbps", optional_json(port.rate_gbps)},
               {"link_layer", port.link_layer},
               {"netdev", port.netdev},
               {"gids", std::move(gids)},
               {"gid_table_read", port.gid_table_read},
               {"counters", counters_json(port.counters)},
               {"hw_counters", counters_json(port.hw_counters)},
               {"hw_counters_lifespan_ms", optional_json(port.hw_counters_lifespan_ms)},
               {"counter_source", port.counter_source},
               {"optional_counters", std::move(optional_counters)}};
  // QP counters (added to version 1 later): written only when read, so older files and ports
  // without RDMA netlink look as before.
  if (port.qp_counter_mode) {
    out["qp_counter_mode"] = {{"mode", port.qp_counter_mode->mode},
                              {"auto_mask", port.qp_counter_mode->auto_mask}};
  }
  if (!port.bound_counters.empty()) {
    ojson bound = ojson::array();
    for (const BoundCounter& c : port.bound_counters) {
      bound.push_back({{"id", c.id},
                       {"mode", c.mode},
                       {"qp_type", optional_json(c.qp_type)},
                       {"pid", optional_json(c.pid)},
                       {"kern_name", c.kern_name},
                       {"comm", c.comm},
                       {"qpns", c.qpns},
                       {"hw_counters", counters_json(c.hw_counters)}});
    }
    out["bound_counters"] = std::move(bound);
  }
  return out;
}

ojson device_json(const DeviceSample& dev) {
  ojson ports = ojson::array();
  for (const auto& p : dev.ports) ports.push_back(port_json(p));
  return {{"name", dev.name},
          {"driver", dev.driver},
          {"node_type", dev.node_type},
          {"fw_ver", dev.fw_ver},
          {"node_guid", dev.node_guid},
          {"sys_image_guid", dev.sys_image_guid},
          {"hca_type", dev.hca_type},
          {"board_id", dev.board_id},
          {"hw_rev", dev.hw_rev},
          {"pci_address", dev.pci_address},
          {"hw_counters", counters_json(dev.hw_counters)},
          {"resources", counters_json(dev.resources)},
          {"ports", std::move(ports)},
          {"devlink", devlink_json(dev.devlink)},
          {"numa_node", optional_json(dev.numa_node)},
          {"irqs", irqs_json(dev.irqs)}};
}

ojson netdev_json(const NetdevSample& nd) {
  ojson driver = nullptr;
  if (nd.driver) {
    driver = {{"driver", nd.driver->driver},
              {"version", nd.driver->version},
              {"fw_version", nd.driver->fw_version},
              {"bus_info", nd.driver->bus_info}};
  }
  ojson pause = nullptr;
  if (nd.pause) {
    pause = {{"autoneg", optional_json(nd.pause->autoneg)},
             {"rx", optional_json(nd.pause->rx)},
             {"tx", optional_json(nd.pause->tx)},
             {"rx_frames", optional_json(nd.pause->rx_frames)},
             {"tx_frames", optional_json(nd.pause->tx_frames)}};
  }
  return {{"name", nd.name},
          {"mtu", optional_json(nd.mtu)},
          {"operstate", nd.operstate},
          {"carrier_changes", optional_json(nd.carrier_changes)},
          {"speed_mbps", optional_json(nd.speed_mbps)},
          {"address", nd.address},
          {"statistics", counters_json(nd.statistics)},
          {"ethtool", counters_json(nd.ethtool)},
          {"driver", std::move(driver)},
          {"pause", std::move(pause)},
          {"dcb", dcb_json(nd.dcb)},
          {"pfc_prevention_tout_ms", optional_json(nd.pfc_prevention_tout_ms)}};
}

ojson source_json(const SourceStatus& s) {
  return {{"source", s.source},
          {"target", s.target},
          {"state", to_string(s.state)},
          {"message", s.message},
          {"duration_ns", s.duration.count()}};
}

ojson probe_json(const ProbeTargetSample& p) {
  ojson window = nullptr;
  if (p.window) {
    window = {{"count", p.window->count}, {"min", p.window->min}, {"p50", p.window->p50},
              {"p90", p.window->p90},     {"p99", p.window->p99}, {"p999", p.window->p999},
              {"max", p.window->max}};
  }
  ojson out = {{"target", p.target},
               {"group", p.group},
               {"transport", p.transport},
               {"traffic_class", optional_json(p.traffic_class)},
               {"local_device", p.local_device},
               {"connected", p.connected},
               {"sent", p.sent},
               {"answered", p.answered},
               {"timed_out", p.timed_out},
               {"connect_failures", p.connect_failures},
               {"qp_errors", p.qp_errors},
               {"wc_errors", counters_json(p.wc_errors)},
               {"last_error", p.last_error},
               {"bucket_upper_seconds", p.bucket_upper_seconds},
               {"bucket_counts", p.bucket_counts},
               {"rtt_sum_seconds", p.rtt_sum_seconds},
               {"window", std::move(window)},
               {"retransmits", optional_json(p.retransmits)},
               {"retransmit_scope", p.retransmit_scope}};
  // Added later in version 1: written only when there is one, so older readers and files agree.
  if (!p.retransmit_note.empty()) out["retransmit_note"] = p.retransmit_note;
  return out;
}

ojson prober_json(const std::optional<ProberCost>& cost) {
  if (!cost) return nullptr;
  return {{"cpu_seconds", cost->cpu_seconds},
          {"qps", cost->qps},
          {"registered_bytes", cost->registered_bytes},
          {"targets", cost->targets}};
}

// ---- decoding -------------------------------------------------------------------------------
// Decoding walks the document with the path of every value, so an error says exactly where the
// recording is wrong. The exception never leaves this file: snapshot_from_json returns an Error.

struct DecodeError {
  std::string message;
};

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw DecodeError{(path.empty() ? std::string("snapshot") : path) + ": " + what};
}

template <class T>
T decode(const json& v, const std::string& path);

template <>
std::string decode<std::string>(const json& v, const std::string& path) {
  if (!v.is_string()) fail(path, "expected a string");
  return v.get<std::string>();
}

template <>
bool decode<bool>(const json& v, const std::string& path) {
  if (!v.is_boolean()) fail(path, "expected true or false");
  return v.get<bool>();
}

template <>
std::uint64_t decode<std::uint64_t>(const json& v, const std::string& path) {
  // nlohmann parses every non-negative integer that fits 64 bits as number_unsigned.
  if (!v.is_number_unsigned()) fail(path, "expected an unsigned integer");
  return v.get<std::uint64_t>();
}

template <>
std::uint32_t decode<std::uint32_t>(const json& v, const std::string& path) {
  const auto wide = decode<std::uint64_t>(v, path);
  if (wide > std::numeric_limits<std::uint32_t>::max()) fail(path, "out of 32-bit range");
  return static_cast<std::uint32_t>(wide);
}

template <>
std::int64_t decode<std::int64_t>(const json& v, const std::string& path) {
  if (v.is_number_unsigned()) {
    if (v.get<std::uint64_t>() >
        static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      fail(path, "out of 64-bit signed range");
    }
    return static_cast<std::int64_t>(v.get<std::uint64_t>());
  }
  if (!v.is_number_integer()) fail(path, "expected an integer");
  return v.get<std::int64_t>();
}

template <>
double decode<double>(const json& v, const std::string& path) {
  if (!v.is_number()) fail(path, "expected a number");
  return v.get<double>();
}

/// One JSON object being decoded, with its path.
class Object {
 public:
  Object(const json& value, std::string path) : value_(value), path_(std::move(path)) {
    if (!value_.is_object()) fail(path_, "expected an object");
  }

  const json& at(const char* key) const {
    const auto it = value_.find(key);
    if (it == value_.end()) fail(child(key), "missing");
    return *it;
  }
  std::string child(const char* key) const { return path_.empty() ? key : path_ + "." + key; }

  template <class T>
  T get(const char* key) const {
    return decode<T>(at(key), child(key));
  }
  /// Optional values are written as null; a missing key also reads as absent.
  template <class T>
  std::optional<T> optional(const char* key) const {
    const auto it = value_.find(key);
    if (it == value_.end() || it->is_null()) return std::nullopt;
    return decode<T>(*it, child(key));
  }
  /// `added_later`: a key added to version 1 after its first release; older files lack it, and
  /// a missing one reads as empty (docs/recording.md, versioning).
  CounterMap counters(const char* key, bool added_later = false) const {
    const std::string path = child(key);
    if (added_later && !value_.contains(key)) return {};
    const json& map = at(key);
    if (!map.is_object()) fail(path, "expected an object of counters");
    CounterMapBuilder out;
    for (const auto& [name, value] : map.items()) {
      out.add(name, decode<std::uint64_t>(value, path + "." + name));
    }
    return std::move(out).finish();
  }
  std::string added_string(const char* key) const {
    return value_.contains(key) ? get<std::string>(key) : std::string();
  }
  std::map<std::string, bool, std::less<>> added_flags(const char* key) const {
    std::map<std::string, bool, std::less<>> out;
    if (!value_.contains(key)) return out;
    const std::string path = child(key);
    const json& map = at(key);
    if (!map.is_object()) fail(path, "expected an object of true/false");
    for (const auto& [name, value] : map.items()) {
      out.emplace(name, decode<bool>(value, path + "." + name));
    }
    return out;
  }
  /// Calls `each(element, element_path)` for every element of the array under `key`.
  template <class F>
  void array(const char* key, F each) const {
    const std::string path = child(key);
    const json& arr = at(key);
    if (!arr.is_array()) fail(path, "expected an array");
    for (std::size_t i = 0; i < arr.size(); ++i) {
      each(arr[i], path + "[" + std::to_string(i) + "]");
    }
  }

 private:
  const json& value_;
  std::string path_;
};

SourceState decode_state(const json& v, const std::string& path) {
  const auto text = decode<std::string>(v, path);
  for (const SourceState s : {SourceState::ok, SourceState::no_data, SourceState::error}) {
    if (text == to_string(s)) return s;
  }
  fail(path, "unknown source state \"" + text + "\"");
}

// ---- host configuration (host_config.h; encoded by present/host_config_json.cpp) --------
// Added to version 1 later: every key is optional on read, missing = absent/empty.

template <class T>
T decode_small(const json& v, const std::string& path) {
  const auto wide = decode<std::int64_t>(v, path);
  if (wide < std::numeric_limits<T>::min() || wide > std::numeric_limits<T>::max()) {
    fail(path, "out of range");
  }
  return static_cast<T>(wide);
}

template <class T>
std::optional<T> optional_small(const json& parent, const Object& o, const char* key) {
  const auto it = parent.find(key);
  if (it == parent.end() || it->is_null()) return std::nullopt;
  return decode_small<T>(*it, o.child(key));
}

/// A number array; u64 elements decode as such, narrower ones range-checked.
template <class T>
std::vector<T> small_numbers(const json& parent, const Object& o, const char* key) {
  std::vector<T> out;
  if (!parent.contains(key)) return out;
  o.array(key, [&out](const json& v, const std::string& p) {
    if constexpr (std::is_same_v<T, std::uint64_t>) {
      out.push_back(decode<std::uint64_t>(v, p));
    } else {
      out.push_back(decode_small<T>(v, p));
    }
  });
  return out;
}

std::map<std::string, std::string, std::less<>> decode_strings(const json& parent, const Object& o,
                                                               const char* key) {
  std::map<std::string, std::string, std::less<>> out;
  if (!parent.contains(key)) return out;
  const json& map = o.at(key);
  if (!map.is_object()) fail(o.child(key), "expected an object of strings");
  for (const auto& [k, v] : map.items())
    out.emplace(k, decode<std::string>(v, o.child(key) + "." + k));
  return out;
}

DevlinkInfo decode_devlink(const json& v, const std::string& path) {
  const Object o(v, path);
  DevlinkInfo d;
  d.bus_name = o.get<std::string>("bus_name");
  d.dev_name = o.get<std::string>("dev_name");
  d.driver = o.added_string("driver");
  d.serial_number = o.added_string("serial_number");
  d.board_serial_number = o.added_string("board_serial_number");
  d.fixed = decode_strings(v, o, "fixed");
  d.running = decode_strings(v, o, "running");
  d.stored = decode_strings(v, o, "stored");
  if (v.contains("reporters")) {
    o.array("reporters", [&d](const json& r, const std::string& rpath) {
      const Object ro(r, rpath);
      d.reporters.push_back(DevlinkHealthReporter{
          ro.get<std::string>("name"), ro.added_string("state"),
          ro.optional<std::uint64_t>("error_count"), ro.optional<std::uint64_t>("recover_count"),
          ro.optional<std::uint64_t>("last_dump_ts_ms"),
          ro.optional<std::uint64_t>("grace_period_ms"), ro.optional<bool>("auto_recover"),
          ro.optional<bool>("auto_dump")});
    });
  }
  return d;
}

DcbInfo decode_dcb(const json& v, const std::string& path) {
  const Object o(v, path);
  DcbInfo d;
  d.pfc_enabled = optional_small<std::uint8_t>(v, o, "pfc_enabled");
  d.pfc_cap = optional_small<std::uint8_t>(v, o, "pfc_cap");
  d.pfc_delay = optional_small<std::uint16_t>(v, o, "pfc_delay");
  d.pfc_requests = small_numbers<std::uint64_t>(v, o, "pfc_requests");
  d.pfc_indications = small_numbers<std::uint64_t>(v, o, "pfc_indications");
  d.ets_prio_tc = small_numbers<std::uint8_t>(v, o, "ets_prio_tc");
  d.ets_tc_bw = small_numbers<std::uint8_t>(v, o, "ets_tc_bw");
  d.ets_tc_tsa = small_numbers<std::uint8_t>(v, o, "ets_tc_tsa");
  if (v.contains("app")) {
    o.array("app", [&d](const json& a, const std::string& apath) {
      const Object ao(a, apath);
      d.app.push_back(
          DcbAppEntry{decode_small<std::uint8_t>(ao.at("selector"), ao.child("selector")),
                      decode_small<std::uint16_t>(ao.at("protocol"), ao.child("protocol")),
                      decode_small<std::uint8_t>(ao.at("priority"), ao.child("priority"))});
    });
  }
  d.trust = o.added_string("trust");
  return d;
}

RdmaProcess decode_rdma_process(const json& v, const std::string& path) {
  const Object o(v, path);
  RdmaProcess p;
  p.pid = o.get<std::uint32_t>("pid");
  p.comm = o.added_string("comm");
  const auto counts = [&](const char* key) {
    std::map<std::string, std::uint32_t, std::less<>> out;
    for (const auto& [k, n] : o.counters(key, /*added_later=*/true)) {
      if (n > std::numeric_limits<std::uint32_t>::max())
        fail(o.child(key) + "." + k, "out of 32-bit range");
      out.emplace(k, static_cast<std::uint32_t>(n));
    }
    return out;
  };
  p.qps = counts("qps");
  p.cqs = counts("cqs");
  p.mrs = counts("mrs");
  p.pds = counts("pds");
  p.pinned_bytes = o.optional<std::uint64_t>("pinned_bytes");
  p.cap_ipc_lock = o.optional<bool>("cap_ipc_lock");
  p.memlock_soft_bytes = o.optional<std::uint64_t>("memlock_soft_bytes");
  p.memlock_unlimited = o.optional<bool>("memlock_unlimited").value_or(false);
  p.cpu_numa_nodes = small_numbers<std::int32_t>(v, o, "cpu_numa_nodes");
  return p;
}

PortSample decode_port(const json& v, const std::string& path) {
  const Object o(v, path);
  PortSample p;
  p.port = o.get<std::uint32_t>("port");
  p.state_id = o.optional<std::uint32_t>("state_id");
  p.state = o.get<std::string>("state");
  p.phys_state_id = o.optional<std::uint32_t>("phys_state_id");
  p.phys_state = o.get<std::string>("phys_state");
  p.rate_text = o.get<std::string>("rate_text");
  p.rate_gbps = o.optional<double>("rate_gbps");
  p.link_layer = o.get<std::string>("link_layer");
  p.netdev = o.get<std::string>("netdev");
  o.array("gids", [&p](const json& g, const std::string& gpath) {
    const Object go(g, gpath);
    p.gids.push_back(GidEntry{go.get<std::uint32_t>("index"), go.get<std::string>("gid"),
                              go.get<std::string>("type"), go.get<std::string>("netdev")});
  });
  // Added to version 1 later: in older files a listed entry proves the table was read; an empty
  // list says nothing, so it stays "not read" (absent, not "no GID").
  p.gid_table_read = o.optional<bool>("gid_table_read").value_or(!p.gids.empty());
  p.counters = o.counters("counters");
  p.hw_counters = o.counters("hw_counters");
  p.hw_counters_lifespan_ms = o.optional<std::uint32_t>("hw_counters_lifespan_ms");
  p.counter_source = o.added_string("counter_source");
  p.optional_counters = o.added_flags("optional_counters");
  if (v.contains("qp_counter_mode") && !v.at("qp_counter_mode").is_null()) {
    const Object mo(o.at("qp_counter_mode"), o.child("qp_counter_mode"));
    p.qp_counter_mode =
        QpCounterMode{mo.get<std::uint32_t>("mode"), mo.get<std::uint32_t>("auto_mask")};
  }
  if (v.contains("bound_counters")) {
    o.array("bound_counters", [&p](const json& c, const std::string& cpath) {
      const Object co(c, cpath);
      BoundCounter b;
      b.id = co.get<std::uint32_t>("id");
      b.mode = co.get<std::uint32_t>("mode");
      b.qp_type = optional_small<std::uint8_t>(c, co, "qp_type");
      b.pid = co.optional<std::uint32_t>("pid");
      b.kern_name = co.added_string("kern_name");
      b.comm = co.added_string("comm");
      b.qpns = small_numbers<std::uint32_t>(c, co, "qpns");
      b.hw_counters = co.counters("hw_counters");
      p.bound_counters.push_back(std::move(b));
    });
  }
  return p;
}

DeviceSample decode_device(const json& v, const std::string& path) {
  const Object o(v, path);
  DeviceSample d;
  d.name = o.get<std::string>("name");
  d.driver = o.get<std::string>("driver");
  d.node_type = o.get<std::string>("node_type");
  d.fw_ver = o.get<std::string>("fw_ver");
  d.node_guid = o.get<std::string>("node_guid");
  d.sys_image_guid = o.get<std::string>("sys_image_guid");
  d.hca_type = o.get<std::string>("hca_type");
  d.board_id = o.get<std::string>("board_id");
  d.hw_rev = o.get<std::string>("hw_rev");
  d.pci_address = o.get<std::string>("pci_address");
  d.hw_counters = o.counters("hw_counters");
  d.resources = o.counters("resources", /*added_later=*/true);
  o.array("ports", [&d](const json& p, const std::string& ppath) {
    d.ports.push_back(decode_port(p, ppath));
  });
  if (const auto it = v.find("devlink"); it != v.end() && !it->is_null()) {
    d.devlink = decode_devlink(*it, o.child("devlink"));
  }
  d.numa_node = optional_small<std::int32_t>(v, o, "numa_node");
  if (v.contains("irqs")) {
    o.array("irqs", [&d](const json& i, const std::string& ipath) {
      const Object io(i, ipath);
      d.irqs.push_back(IrqSample{io.get<std::uint32_t>("irq"), io.get<std::string>("name"),
                                 io.get<std::uint64_t>("count")});
    });
  }
  return d;
}

NetdevSample decode_netdev(const json& v, const std::string& path) {
  const Object o(v, path);
  NetdevSample n;
  n.name = o.get<std::string>("name");
  n.mtu = o.optional<std::uint32_t>("mtu");
  n.operstate = o.get<std::string>("operstate");
  n.carrier_changes = o.optional<std::uint64_t>("carrier_changes");
  n.speed_mbps = o.optional<std::int64_t>("speed_mbps");
  n.address = o.get<std::string>("address");
  n.statistics = o.counters("statistics");
  n.ethtool = o.counters("ethtool");
  if (const json& drv = o.at("driver"); !drv.is_null()) {
    const Object d(drv, o.child("driver"));
    n.driver = DriverInfo{d.get<std::string>("driver"), d.get<std::string>("version"),
                          d.get<std::string>("fw_version"), d.get<std::string>("bus_info")};
  }
  if (const json& pause = o.at("pause"); !pause.is_null()) {
    const Object p(pause, o.child("pause"));
    n.pause =
        PauseInfo{p.optional<bool>("autoneg"), p.optional<bool>("rx"), p.optional<bool>("tx"),
                  p.optional<std::uint64_t>("rx_frames"), p.optional<std::uint64_t>("tx_frames")};
  }
  if (const auto it = v.find("dcb"); it != v.end() && !it->is_null()) {
    n.dcb = decode_dcb(*it, o.child("dcb"));
  }
  n.pfc_prevention_tout_ms = optional_small<std::uint16_t>(v, o, "pfc_prevention_tout_ms");
  return n;
}

SourceStatus decode_source(const json& v, const std::string& path) {
  const Object o(v, path);
  SourceStatus s;
  s.source = o.get<std::string>("source");
  s.target = o.get<std::string>("target");
  s.state = decode_state(o.at("state"), o.child("state"));
  s.message = o.get<std::string>("message");
  s.duration = std::chrono::nanoseconds(o.get<std::int64_t>("duration_ns"));
  return s;
}

template <class T>
std::vector<T> decode_numbers(const Object& o, const char* key) {
  std::vector<T> out;
  o.array(key,
          [&out](const json& v, const std::string& path) { out.push_back(decode<T>(v, path)); });
  return out;
}

ProbeTargetSample decode_probe(const json& v, const std::string& path) {
  const Object o(v, path);
  ProbeTargetSample p;
  p.target = o.get<std::string>("target");
  p.group = o.get<std::string>("group");
  p.transport = o.get<std::string>("transport");
  p.traffic_class = o.optional<std::uint32_t>("traffic_class");
  p.local_device = o.get<std::string>("local_device");
  p.connected = o.get<bool>("connected");
  p.sent = o.get<std::uint64_t>("sent");
  p.answered = o.get<std::uint64_t>("answered");
  p.timed_out = o.get<std::uint64_t>("timed_out");
  p.connect_failures = o.get<std::uint64_t>("connect_failures");
  p.qp_errors = o.get<std::uint64_t>("qp_errors");
  p.wc_errors = o.counters("wc_errors");
  p.last_error = o.get<std::string>("last_error");
  p.bucket_upper_seconds = decode_numbers<double>(o, "bucket_upper_seconds");
  p.bucket_counts = decode_numbers<std::uint64_t>(o, "bucket_counts");
  if (p.bucket_counts.size() != p.bucket_upper_seconds.size()) {
    fail(o.child("bucket_counts"), "expected as many counts as bucket_upper_seconds");
  }
  p.rtt_sum_seconds = o.get<double>("rtt_sum_seconds");
  if (const json& w = o.at("window"); !w.is_null()) {
    const Object wo(w, o.child("window"));
    p.window =
        RttSummary{wo.get<std::uint64_t>("count"), wo.get<double>("min"), wo.get<double>("p50"),
                   wo.get<double>("p90"),          wo.get<double>("p99"), wo.get<double>("p999"),
                   wo.get<double>("max")};
  }
  p.retransmits = o.optional<std::uint64_t>("retransmits");
  p.retransmit_scope = o.get<std::string>("retransmit_scope");
  p.retransmit_note = o.added_string("retransmit_note");
  return p;
}

ProberCost decode_prober(const json& v, const std::string& path) {
  const Object o(v, path);
  return ProberCost{o.get<double>("cpu_seconds"), o.get<std::uint32_t>("qps"),
                    o.get<std::uint64_t>("registered_bytes"), o.get<std::uint32_t>("targets")};
}

}  // namespace

nlohmann::ordered_json snapshot_to_json(const Snapshot& snapshot,
                                        std::chrono::steady_clock::time_point start) {
  ojson devices = ojson::array();
  for (const auto& d : snapshot.devices) devices.push_back(device_json(d));
  ojson netdevs = ojson::array();
  for (const auto& n : snapshot.netdevs) netdevs.push_back(netdev_json(n));
  ojson sources = ojson::array();
  for (const auto& s : snapshot.sources) sources.push_back(source_json(s));
  ojson probes = ojson::array();
  for (const auto& p : snapshot.probes) probes.push_back(probe_json(p));
  ojson processes = ojson::array();
  for (const auto& p : snapshot.rdma_processes) processes.push_back(rdma_process_json(p));
  const auto wall_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(snapshot.wall.time_since_epoch());
  const auto offset_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(snapshot.taken - start);
  return {{"seq", snapshot.seq},
          {"wall_unix_ns", wall_ns.count()},
          {"offset_ns", offset_ns.count()},
          {"hostname", snapshot.hostname},
          {"devices", std::move(devices)},
          {"netdevs", std::move(netdevs)},
          {"sources", std::move(sources)},
          {"probes", std::move(probes)},
          {"prober", prober_json(snapshot.prober)},
          {"rdma_processes", std::move(processes)}};
}

Result<Snapshot> snapshot_from_json(const json& json_doc,
                                    std::chrono::steady_clock::time_point start) {
  try {
    const Object o(json_doc, "");
    Snapshot s;
    s.seq = o.get<std::uint64_t>("seq");
    s.wall = std::chrono::system_clock::time_point(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(
            std::chrono::nanoseconds(o.get<std::int64_t>("wall_unix_ns"))));
    s.taken = start + std::chrono::nanoseconds(o.get<std::int64_t>("offset_ns"));
    s.hostname = o.get<std::string>("hostname");
    o.array("devices", [&s](const json& v, const std::string& path) {
      s.devices.push_back(decode_device(v, path));
    });
    o.array("netdevs", [&s](const json& v, const std::string& path) {
      s.netdevs.push_back(decode_netdev(v, path));
    });
    o.array("sources", [&s](const json& v, const std::string& path) {
      s.sources.push_back(decode_source(v, path));
    });
    // probes/prober were added to version 1 later: older files lack them (no prober ran).
    if (json_doc.contains("probes")) {
      o.array("probes", [&s](const json& v, const std::string& path) {
        s.probes.push_back(decode_probe(v, path));
      });
    }
    if (const auto it = json_doc.find("prober"); it != json_doc.end() && !it->is_null()) {
      s.prober = decode_prober(*it, "prober");
    }
    if (json_doc.contains("rdma_processes")) {
      o.array("rdma_processes", [&s](const json& v, const std::string& path) {
        s.rdma_processes.push_back(decode_rdma_process(v, path));
      });
    }
    return s;
  } catch (const DecodeError& e) {
    return Error{0, e.message};
  }
}

}  // namespace rdmatop
