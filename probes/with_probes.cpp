#include "probes/with_probes.h"

#include "probes/port_retransmits.h"

namespace rdmatop::probes {

std::vector<StreamSpec> expand_streams(const std::vector<TargetSpec>& targets,
                                       const std::vector<TransportKind>& kinds,
                                       std::optional<std::uint32_t> traffic_class) {
  std::vector<StreamSpec> out;
  for (const auto& t : targets) {
    const auto& use_kinds = t.transports.empty() ? kinds : t.transports;
    std::vector<std::optional<std::uint32_t>> classes;
    for (auto tc : t.traffic_classes) classes.emplace_back(tc);
    if (classes.empty()) classes.push_back(traffic_class);
    for (auto kind : use_kinds) {
      for (const auto& tc : classes) {
        StreamSpec s;
        s.target = t.target;
        s.endpoint = t.endpoint;
        s.group = t.group;
        s.kind = kind;
        // TCP has no GRH: its traffic class is the socket's TOS byte, the same number.
        s.traffic_class = tc;
        s.rate = t.rate;
        out.push_back(std::move(s));
      }
    }
  }
  return out;
}

TargetReloader::TargetReloader(std::string path, std::vector<TransportKind> kinds,
                               std::optional<std::uint32_t> traffic_class,
                               std::shared_ptr<Runner> runner, ErrorSink on_error)
    : file_(std::move(path)),
      kinds_(std::move(kinds)),
      traffic_class_(traffic_class),
      runner_(std::move(runner)),
      on_error_(std::move(on_error)) {}

bool TargetReloader::poll() {
  auto list = file_.poll();
  if (!list) return false;
  for (const auto& e : list->errors) {
    if (on_error_) on_error_(e);
  }
  if (list->unreadable) return false;
  runner_->set_streams(expand_streams(list->targets, kinds_, traffic_class_));
  return true;
}

SnapshotSource with_probes(SnapshotSource inner, std::shared_ptr<Runner> runner,
                           std::shared_ptr<TargetReloader> reloader) {
  return [inner = std::move(inner), runner = std::move(runner),
          reloader = std::move(reloader)](std::uint64_t seq) -> std::optional<Snapshot> {
    auto snapshot = inner(seq);
    if (!snapshot) return snapshot;
    if (reloader) reloader->poll();
    // The port retransmit counters of this very tick: the runner reads nothing itself.
    const auto probed = runner->probed_ports();
    const auto ports = port_retransmits(*snapshot, &probed);
    const auto qps = qp_retransmits(*snapshot, &probed);
    auto results = runner->sample(&ports, &qps);
    snapshot->probes = std::move(results.targets);
    snapshot->prober = results.cost;
    return snapshot;
  };
}

}  // namespace rdmatop::probes
