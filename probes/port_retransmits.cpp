#include "probes/port_retransmits.h"

#include <functional>

#include "collector/normalize/normalizer.h"

namespace rdmatop::probes {

std::optional<std::uint64_t> port_retransmit_evidence(const std::vector<Series>& series,
                                                      const std::string& device,
                                                      std::uint32_t port) {
  const std::string port_text = std::to_string(port);
  std::optional<double> retransmits;
  std::optional<double> causes;
  for (const auto& s : series) {
    if (label_value(s.labels, "device") != device || label_value(s.labels, "port") != port_text) {
      continue;
    }
    if (s.name == "rdma_retransmits_total") {
      retransmits = retransmits.value_or(0) + s.value;
    } else if (s.name == "rdma_ack_timeouts_total" || s.name == "rdma_seq_err_naks_total") {
      causes = causes.value_or(0) + s.value;
    }
  }
  const auto chosen = retransmits ? retransmits : causes;
  if (!chosen) return std::nullopt;
  return static_cast<std::uint64_t>(*chosen);
}

namespace {

/// The devices of the wanted ports (every port when `ports` is null), normalized alone so the
/// counter-table work is done for those only (the table, not this file, knows each driver's
/// counter names): `add` puts into `copy`, a copy of the device without counters or ports,
/// what each wanted port contributes.
std::vector<Series> normalize_ports(
    const Snapshot& snapshot, const std::set<PortKey>* ports,
    const std::function<void(const DeviceSample&, const PortSample&, DeviceSample& copy)>& add) {
  Snapshot wanted;
  for (const auto& device : snapshot.devices) {
    DeviceSample copy;
    copy.name = device.name;
    copy.driver = device.driver;
    for (const auto& port : device.ports) {
      if (ports == nullptr || ports->count({device.name, port.port}) != 0) add(device, port, copy);
    }
    if (!copy.ports.empty()) wanted.devices.push_back(std::move(copy));
  }
  if (wanted.devices.empty()) return {};
  return normalize(wanted);
}

}  // namespace

PortRetransmits port_retransmits(const Snapshot& snapshot, const std::set<PortKey>* ports) {
  std::vector<PortKey> keys;
  const auto series = normalize_ports(
      snapshot, ports, [&](const DeviceSample& device, const PortSample& port, DeviceSample& copy) {
        copy.hw_counters = device.hw_counters;
        copy.ports.push_back(port);
        keys.emplace_back(device.name, port.port);
      });
  PortRetransmits out;
  for (const auto& [device, port] : keys) {
    if (const auto v = port_retransmit_evidence(series, device, port)) out[{device, port}] = *v;
  }
  return out;
}

QpRetransmits qp_retransmits(const Snapshot& snapshot, const std::set<PortKey>* ports) {
  // Each bound counter becomes a port of its own (numbered 1..N) of its device's copy, without
  // the device's counters, so normalize() maps the driver's raw names exactly as for the port.
  struct Entry {
    std::string device;
    std::uint32_t port = 0;
    std::uint32_t as_port = 0;
    const BoundCounter* counter = nullptr;
  };
  std::vector<Entry> entries;
  const auto series = normalize_ports(
      snapshot, ports, [&](const DeviceSample& device, const PortSample& port, DeviceSample& copy) {
        for (const BoundCounter& counter : port.bound_counters) {
          PortSample as_port;
          as_port.port = static_cast<std::uint32_t>(entries.size() + 1);
          as_port.hw_counters = counter.hw_counters;
          entries.push_back({device.name, port.port, as_port.port, &counter});
          copy.ports.push_back(std::move(as_port));
        }
      });
  QpRetransmits out;
  for (const Entry& e : entries) {
    const auto v = port_retransmit_evidence(series, e.device, e.as_port);
    if (!v) continue;
    for (std::uint32_t qpn : e.counter->qpns) {
      out[{e.device, e.port, qpn}] = {e.counter->id, e.counter->qpns.size(), *v};
    }
  }
  return out;
}

}  // namespace rdmatop::probes
