// `rdmatop exporter`: serves the latest diagnosis as Prometheus metrics (docs/exporter.md).
// The main thread only waits for SIGINT/SIGTERM; the service's poll thread collects and
// the HTTP server's thread (exporters/http/http_server.h) serves scrapes.
#include <pthread.h>
#include <csignal>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "cli/common_options.h"
#include "collector/process_collector.h"
#include "exporters/prometheus/exporter_service.h"
#include "exporters/prometheus/web_config.h"
#include "pipeline/fast_loop.h"
#include "pipeline/monitor.h"
#include "pipeline/tick.h"
#include "simulator/simulator.h"

namespace rdmatop {

namespace {

struct ExporterCommandOptions {
  SourceOptions sources;
  ExporterOptions service;
  RuleOptions rules;
  bool no_raw_counters = false;
  RawCounterFilterOptions raw_filter;
  std::string demo_scenario;      ///< non-empty: serve the fabric simulator instead of this host
  std::vector<std::string> from;  ///< non-empty: serve a recording instead of this host
  ProbeWiringOptions probes;
  std::string web_config;  ///< non-empty: basic auth from this file
  double fast_interval_seconds = FastPathOptions{}.interval_s;
};

/// Reads --web-config into the service options.
std::optional<Error> apply_web_config(const std::string& path, ExporterOptions& service) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  auto config = parse_web_config(*text, path);
  if (!config) return config.error();
  service.basic_auth_users = config->basic_auth_users;
  return std::nullopt;
}

int run_exporter(const ExporterCommandOptions& options) {
  // Block the stop signals before any thread starts, so every thread inherits the mask and
  // sigwait() below is the only place they are delivered.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  ExporterOptions service_options = options.service;
  service_options.read_process = host_process_reader();
  if (!options.web_config.empty()) {
    if (auto error = apply_web_config(options.web_config, service_options)) {
      std::cerr << "rdmatop exporter: --web-config: " << error->message << "\n";
      return static_cast<int>(ReportExit::usage);
    }
  }
  RuleSetLoad rules = load_rules(options.rules, "rdmatop exporter");
  // Exactly one data source: this host's collectors, or the simulator playing a scenario in a
  // loop (rdmatop demo's provider), so dashboards and alerts can be tried without hardware.
  const HostSources sources(options.sources);
  const CollectContext ctx = sources.context();
  std::unique_ptr<sim::Simulator> simulator;
  std::unique_ptr<SimulatedFastPath> simulated_fast;
  auto probed = with_probe_options(live_provider(ctx), options.probes, "rdmatop exporter");
  if (!probed) {
    std::cerr << "rdmatop exporter: " << probed.error().message << "\n";
    return static_cast<int>(ReportExit::usage);
  }
  SnapshotProvider provider = std::move(probed).value();
  if (!options.demo_scenario.empty()) {
    auto created = open_demo(options.demo_scenario, /*loop=*/true);
    if (!created) {
      std::cerr << "rdmatop exporter: " << created.error().message << "\n";
      return static_cast<int>(ReportExit::usage);
    }
    simulator = std::move(created).value();
    simulated_fast = std::make_unique<SimulatedFastPath>(*simulator, options.fast_interval_seconds);
    provider = simulated_fast->provider();
  } else if (!options.from.empty()) {
    // One recorded snapshot per --interval; after the last one the exporter keeps serving it.
    auto replay = open_replay(options.from);
    if (!replay) {
      std::cerr << "rdmatop exporter: " << replay.error().message << "\n";
      return static_cast<int>(ReportExit::no_data);
    }
    provider = std::move(replay).value();
  }
  Monitor monitor(std::move(provider), std::move(rules.groups), std::move(rules.errors));
  // The page serves series, never the TUI's and report's per-port figures.
  monitor.set_port_views(PortViews::skip);
  // The fast path: on the simulator between its ticks, on a host in a thread of its own (a
  // recording has no sub-tick data).
  if (simulated_fast) {
    simulated_fast->attach(monitor);
  } else if (options.from.empty()) {
    enable_host_fast_path(monitor, options.sources, options.fast_interval_seconds);
  }
  const FastLoop fast_loop(monitor);
  MetricsOptions metrics;
  metrics.raw_counters = !options.no_raw_counters;
  auto raw_filter = RawCounterFilter::make(options.raw_filter);
  if (!raw_filter) {
    std::cerr << "rdmatop exporter: " << raw_filter.error().message << "\n";
    return static_cast<int>(ReportExit::usage);
  }
  metrics.raw_filter = *raw_filter;
  metrics.version = RDMATOP_VERSION;
  ExporterService service(monitor, std::move(service_options), metrics);
  const Result<int> port = service.start();
  if (!port) {
    std::cerr << "rdmatop exporter: " << port.error().message << "\n";
    return static_cast<int>(ReportExit::usage);
  }
  // Tests and wrappers started with --listen ...:0 read the bound port from this line.
  std::cerr << "rdmatop exporter: listening on port " << *port << "\n";
  int signal = 0;
  sigwait(&stop_signals, &signal);
  std::cerr << "rdmatop exporter: stopping on signal " << signal << "\n";
  service.stop();
  return 0;
}

}  // namespace

void register_exporter_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ExporterCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "exporter", "Prometheus exporter: canonical series, raw counters and rule findings");
  add_source_options(*cmd, options->sources);
  cmd->add_option("--listen", options->service.listen,
                  "Address to listen on: PORT or :PORT (all IPv4 addresses), IPv4:PORT, or "
                  "[IPv6]:PORT where the HTTP server has IPv6; port 0 picks a free one")
      ->capture_default_str();
  cmd->add_option("--interval", options->service.interval_seconds,
                  "Seconds between collections; scrapes serve the latest one")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 3600.0));
  add_rule_options(*cmd, options->rules);
  add_fast_path_option(*cmd, options->fast_interval_seconds);
  add_probe_options(*cmd, options->probes);
  cmd->add_flag("--no-raw-counters", options->no_raw_counters,
                "Do not expose the raw driver counters (rdma_raw_* families)");
  cmd->add_option("--raw-counters", options->raw_filter.include,
                  "Expose only the raw counters whose name matches this regular expression "
                  "(whole name, RE2 syntax as in Prometheus), e.g. 'rx_prio.*|pfc_.*'");
  cmd->add_option("--raw-counters-exclude", options->raw_filter.exclude,
                  "Then drop the raw counters whose name matches this regular expression");
  cmd->add_flag("--raw-per-queue", options->raw_filter.per_queue,
                "Also expose per-queue and per-channel ethtool statistics (rx3_bytes, "
                "ch0_events, rx_queue_7_packets...): off by default, a many-queue NIC has "
                "thousands");
  cmd->add_option("--demo", options->demo_scenario,
                  "Serve the fabric simulator playing this scenario in a loop instead of the "
                  "host (see `rdmatop demo --list`); one simulated tick per --interval");
  cmd->add_option("--from", options->from,
                  "Serve a recording (rdmatop record) instead of the host, one snapshot per "
                  "--interval; the last one stays served after the end. One file, or all files "
                  "of a rotated recording (--from rec.jsonl*)")
      ->excludes("--demo");
  cmd->add_option("--web-config", options->web_config,
                  "Basic auth for /metrics in the Prometheus exporter-toolkit web-config "
                  "format (basic_auth_users with bcrypt hashes; docs/exporter.md)");
  cmd->callback([options, &exit_code] { exit_code = run_exporter(*options); });
}

}  // namespace rdmatop
