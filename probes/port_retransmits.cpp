#include "probes/port_retransmits.h"

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

PortRetransmits port_retransmits(const Snapshot& snapshot, const std::set<PortKey>* ports) {
  // The wanted devices with only the wanted ports, so normalize() does the counter-table work
  // for those alone (the table, not this file, knows each driver's counter names).
  Snapshot wanted;
  std::vector<PortKey> keys;
  for (const auto& device : snapshot.devices) {
    DeviceSample copy;
    copy.name = device.name;
    copy.driver = device.driver;
    copy.hw_counters = device.hw_counters;
    for (const auto& port : device.ports) {
      if (ports != nullptr && ports->count({device.name, port.port}) == 0) continue;
      copy.ports.push_back(port);
      keys.emplace_back(device.name, port.port);
    }
    if (!copy.ports.empty()) wanted.devices.push_back(std::move(copy));
  }
  PortRetransmits out;
  if (keys.empty()) return out;
  const std::vector<Series> series = normalize(wanted);
  for (const auto& [device, port] : keys) {
    if (const auto v = port_retransmit_evidence(series, device, port)) out[{device, port}] = *v;
  }
  return out;
}

}  // namespace rdmatop::probes
