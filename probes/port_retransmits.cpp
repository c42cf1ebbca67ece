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

RetransmitReader port_retransmit_reader(const CollectContext& ctx) {
  const FileSource* sysfs = &ctx.sysfs;
  EthtoolSource* ethtool = &ctx.ethtool;
  return [sysfs, ethtool](const std::string& device,
                          std::uint32_t port) -> std::optional<std::uint64_t> {
    // sysfs only: the netlink socket belongs to the monitor's thread.
    const CollectContext one{*sysfs, *ethtool, DeviceFilter{{device}, {}}, nullptr,
                             CounterSource::sysfs};
    Snapshot snapshot;
    collect_rdma_sysfs(one, snapshot);
    return port_retransmit_evidence(normalize(snapshot), device, port);
  };
}

}  // namespace rdmatop::probes
