#include "probes/port_retransmits.h"

#include <string_view>

#include "collector/normalize/driver_family.h"
#include "collector/normalize/normalizer.h"
#include "collector/normalize/qp_counter_series.h"

namespace rdmatop::probes {

namespace {

/// The retransmit evidence rule over canonical series: rdma_retransmits_total when the driver
/// has it, else the sum of rdma_ack_timeouts_total and rdma_seq_err_naks_total present.
class Evidence {
 public:
  void add(std::string_view series, double value) {
    if (series == "rdma_retransmits_total") {
      retransmits_ = retransmits_.value_or(0) + value;
    } else if (series == "rdma_ack_timeouts_total" || series == "rdma_seq_err_naks_total") {
      causes_ = causes_.value_or(0) + value;
    }
  }
  std::optional<std::uint64_t> value() const {
    const auto chosen = retransmits_ ? retransmits_ : causes_;
    if (!chosen) return std::nullopt;
    return static_cast<std::uint64_t>(*chosen);
  }

 private:
  std::optional<double> retransmits_;
  std::optional<double> causes_;
};

}  // namespace

std::optional<std::uint64_t> port_retransmit_evidence(const std::vector<Series>& series,
                                                      const std::string& device,
                                                      std::uint32_t port) {
  const std::string port_text = std::to_string(port);
  Evidence evidence;
  for (const auto& s : series) {
    if (label_value(s.labels, "device") == device && label_value(s.labels, "port") == port_text) {
      evidence.add(s.name, s.value);
    }
  }
  return evidence.value();
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

QpRetransmits qp_retransmits(const Snapshot& snapshot, const std::set<PortKey>* ports) {
  // A bound counter's raw counters are the port's kind (the kernel allocates them from the
  // port's hw stats), so the counter table maps them as it does the port's.
  QpRetransmits out;
  for (const auto& device : snapshot.devices) {
    const DriverFamily family = driver_families(device.driver, nullptr).rdma;
    for (const auto& port : device.ports) {
      if (ports != nullptr && ports->count({device.name, port.port}) == 0) continue;
      for (const BoundCounter& counter : port.bound_counters) {
        Evidence evidence;
        for (const auto& [raw, value] : counter.hw_counters) {
          evidence.add(canonical_series_of(family, raw), static_cast<double>(value));
        }
        const auto v = evidence.value();
        if (!v) continue;
        for (const std::uint32_t qpn : counter.qpns) {
          out[{device.name, port.port, qpn}] = {counter.id, counter.qpns.size(), *v};
        }
      }
    }
  }
  return out;
}

}  // namespace rdmatop::probes
