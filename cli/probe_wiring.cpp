// --probe-targets on the long-running surfaces (exporter, TUI, record): a pingmesh runner whose
// samples ride in every Snapshot. A file of its own so the surfaces that do not probe (and the
// tests) do not link the transports.
#include <iostream>

#include "cli/common_options.h"
#include "probes/with_probes.h"

namespace rdmatop {

void add_probe_options(CLI::App& command, ProbeWiringOptions& options) {
  command.add_option("--probe-targets", options.targets_file,
                     "Probe these responders continuously (target file, reloaded on change; "
                     "docs/probes.md); results appear as probe series and metrics");
  command
      .add_option("--probe-transport", options.transports,
                  "Transports for --probe-targets entries without their own: rc_send, "
                  "rc_write, tcp (comma-separated)")
      ->capture_default_str();
  command.add_option("--probe-rate", options.rate, "Probes per second per target and transport")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 1000.0));
  command.add_flag("--probe-no-qp-counter", options.no_qp_counter,
                   "Do not bind the probe QPs to counters of their own (retransmits are then "
                   "port-level unless the port's auto mode binds them)");
}

Result<SnapshotProvider> with_probe_options(SnapshotProvider provider,
                                            const ProbeWiringOptions& options,
                                            const std::string& who) {
  if (options.targets_file.empty()) return provider;
  auto kinds = probes::parse_transport_list(options.transports);
  if (!kinds) return Error{EINVAL, "--probe-transport: " + kinds.error().message};
  probes::RunnerOptions ro;
  ro.factory = probes::default_transport_factory();
  if (!options.no_qp_counter) ro.qp_counter_binder = probes::netlink_qp_counter_binder();
  ro.schedule.rate_per_stream = options.rate;
  auto runner = std::make_shared<probes::Runner>(ro);
  auto reloader = std::make_shared<probes::TargetReloader>(
      options.targets_file, *kinds, std::nullopt, runner,
      [who](const std::string& e) { std::cerr << who << ": " << e << "\n"; });
  reloader->poll();
  runner->start();
  return SnapshotProvider(probes::with_probes(std::move(provider), runner, reloader));
}

}  // namespace rdmatop
