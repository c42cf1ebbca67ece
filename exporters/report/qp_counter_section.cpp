#include "exporters/report/qp_counter_section.h"

#include <fmt/format.h>

#include <array>
#include <string_view>
#include <utility>

#include "collector/normalize/driver_family.h"
#include "collector/normalize/qp_counter_series.h"
#include "present/json_util.h"
#include "present/text_table.h"

namespace rdmatop {
namespace {

using ojson = nlohmann::ordered_json;

/// The error counters an operator looks at first on a bound counter, by canonical series
/// (each driver's raw name comes from the counter table): retransmission causes and their
/// traces on the responder.
struct KeyCounter {
  std::string_view series;
  std::string_view column;  ///< text column
  std::string_view key;     ///< JSON key
};
constexpr std::array<KeyCounter, 6> kKeyCounters{{
    {"rdma_retransmits_total", "RETRANS", "retransmits"},
    {"rdma_ack_timeouts_total", "ACK TIMEOUTS", "ack_timeouts"},
    {"rdma_seq_err_naks_total", "SEQ NAKS", "seq_err_naks"},
    {"rdma_out_of_sequence_total", "OUT OF SEQ", "out_of_sequence"},
    {"rdma_rnr_retry_exceeded_total", "RNR EXCEEDED", "rnr_retry_exceeded"},
    {"rdma_duplicate_requests_total", "DUP REQ", "duplicate_requests"},
}};

/// The key counters' values on a bound counter, in kKeyCounters order; nullopt where the
/// driver has none. Each raw counter is mapped to its canonical series once.
using KeyValues = std::array<std::optional<std::uint64_t>, kKeyCounters.size()>;
KeyValues key_values(const DeviceSample& dev, const BoundCounter& c) {
  const DriverFamily family = driver_families(dev.driver, nullptr).rdma;
  KeyValues out;
  for (const auto& [raw, value] : c.hw_counters) {
    const auto series = canonical_series_of(family, raw);
    for (std::size_t i = 0; i < kKeyCounters.size(); ++i) {
      if (series == kKeyCounters[i].series && !out[i]) out[i] = value;
    }
  }
  return out;
}

/// "none", "auto (type,pid)", "manual", or the number the kernel sent.
std::string mode_text(std::uint32_t mode, std::uint32_t mask) {
  switch (mode) {
    case 0:
      return "none";
    case 1: {
      std::string criteria;
      if ((mask & 1U) != 0) criteria = "type";
      if ((mask & 2U) != 0) criteria += criteria.empty() ? "pid" : ",pid";
      return criteria.empty() ? "auto" : "auto (" + criteria + ")";
    }
    case 2:
      return "manual";
    default:
      break;
  }
  return "mode " + std::to_string(mode);
}

/// A bound counter's own mode: auto or manual (core/counters.c alloc_and_bind), or 0 where a
/// pasted `rdma statistic qp show` did not tell (collector/capture/parse_rdma_qp_counters.cpp).
std::string counter_mode_text(std::uint32_t mode) {
  return mode == 0 ? "not known" : mode_text(mode, 0);
}

std::string qp_type_text(std::optional<std::uint8_t> type) {
  if (!type) return "-";
  switch (*type) {  // enum ib_qp_type
    case 2:
      return "RC";
    case 3:
      return "UC";
    case 4:
      return "UD";
    default:
      break;
  }
  return std::to_string(*type);
}

std::string qpns_text(const std::vector<std::uint32_t>& qpns) {
  if (qpns.empty()) return "-";
  std::string out;
  for (const std::uint32_t q : qpns) out += (out.empty() ? "" : ",") + std::to_string(q);
  return out;
}

/// The note of a port: why it has no counters to bind, or what went wrong reading it.
std::string port_note(const Snapshot& snap, const DeviceSample& dev, const PortSample& port) {
  const std::string target = fmt::format("{}/{}", dev.name, port.port);
  for (const SourceStatus& s : snap.sources) {
    if (s.source == "netlink-qp-counters" && s.target == target && s.state != SourceState::ok) {
      return s.message;
    }
  }
  if (binds_qp_counters(dev.driver) == false) {
    return "driver " + dev.driver + " cannot bind QP counters (no counter_bind_qp)";
  }
  return "";
}

bool read_any(const Snapshot& snap) {
  for (const SourceStatus& s : snap.sources) {
    if (s.source == "netlink-qp-counters") return true;
  }
  return false;
}

}  // namespace

std::string render_qp_counter_text(const PublishedTick& report) {
  const Snapshot& snap = report.snapshot;
  if (!read_any(snap)) return "";
  TextTable ports({"PORT", "MODE", "BOUND", "NOTE"});
  std::vector<std::string> header{"PORT", "CNTN", "OWNER", "PID", "QP TYPE", "QPS"};
  for (const KeyCounter& k : kKeyCounters) header.emplace_back(k.column);
  TextTable bound(std::move(header));
  for (const DeviceSample& dev : snap.devices) {
    for (const PortSample& port : dev.ports) {
      const std::string name = fmt::format("{}/{}", dev.name, port.port);
      ports.add_row({name,
                     port.qp_counter_mode
                         ? mode_text(port.qp_counter_mode->mode, port.qp_counter_mode->auto_mask)
                         : "-",
                     port.qp_counter_mode ? std::to_string(port.bound_counters.size()) : "-",
                     port_note(snap, dev, port)});
      for (const BoundCounter& c : port.bound_counters) {
        const std::string owner = bound_counter_owner(c);
        std::vector<std::string> row{name,
                                     std::to_string(c.id),
                                     owner.empty() ? "-" : owner,
                                     c.pid ? std::to_string(*c.pid) : "-",
                                     qp_type_text(c.qp_type),
                                     qpns_text(c.qpns)};
        for (const auto& v : key_values(dev, c)) row.push_back(v ? std::to_string(*v) : "-");
        bound.add_row(std::move(row));
      }
    }
  }
  std::string out = ports.render("  ");
  if (!bound.empty()) {
    out +=
        "  Bound counters (counts since the counter was allocated; the port's own counters "
        "include them):\n" +
        bound.render("    ");
  }
  return out;
}

std::optional<ojson> render_qp_counter_json(const PublishedTick& report) {
  const Snapshot& snap = report.snapshot;
  if (!read_any(snap)) return std::nullopt;
  ojson ports = ojson::array();
  for (const DeviceSample& dev : snap.devices) {
    for (const PortSample& port : dev.ports) {
      ojson counters = ojson::array();
      for (const BoundCounter& c : port.bound_counters) {
        ojson key = ojson::object();
        const KeyValues values = key_values(dev, c);
        for (std::size_t i = 0; i < kKeyCounters.size(); ++i) {
          key[std::string(kKeyCounters[i].key)] = optional_json(values[i]);
        }
        const std::string owner = bound_counter_owner(c);
        counters.push_back({{"id", c.id},
                            {"mode", counter_mode_text(c.mode)},
                            {"qp_type", optional_json(c.qp_type)},
                            {"pid", optional_json(c.pid)},
                            {"owner", owner.empty() ? ojson(nullptr) : ojson(owner)},
                            {"qpns", c.qpns},
                            {"key_counters", std::move(key)},
                            {"hw_counters", counters_json(c.hw_counters)}});
      }
      const std::string note = port_note(snap, dev, port);
      const auto binds = binds_qp_counters(dev.driver);
      ports.push_back(
          {{"device", dev.name},
           {"port", port.port},
           {"mode", port.qp_counter_mode ? ojson(mode_text(port.qp_counter_mode->mode,
                                                           port.qp_counter_mode->auto_mask))
                                         : ojson(nullptr)},
           {"auto_mask",
            port.qp_counter_mode ? ojson(port.qp_counter_mode->auto_mask) : ojson(nullptr)},
           {"driver_binds_counters", binds ? ojson(*binds) : ojson(nullptr)},
           {"note", note},
           {"bound_counters", std::move(counters)}});
    }
  }
  return ports;
}

}  // namespace rdmatop
