// `rdmatop probe TARGET...`: active RC (and TCP baseline) probes against `rdmatop responder`s
// (docs/probes.md). One-shot: --count probes per stream (or --duration), then a table of the
// RTT distribution, losses, errors and retransmits per target and transport, RDMA next to TCP.
// Continuous (--interval without --count/--duration): a line per stream and interval until
// SIGINT/SIGTERM.
#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "cli/commands.h"
#include "cli/common_options.h"
#include "collector/collect.h"
#include "pipeline/tick.h"
#include "probes/port_retransmits.h"
#include "probes/protocol.h"
#include "probes/runner.h"
#include "probes/with_probes.h"
#include "recording/snapshot_json.h"
#include "util/bounded_file.h"

namespace rdmatop {

namespace {

using probes::ProbeResults;

struct ProbeCommandOptions {
  SourceOptions sources;  ///< where the port counters for retransmit attribution are read
  std::vector<std::string> targets;
  std::string targets_file;
  std::string transports = "rc_send";
  std::optional<std::uint32_t> tclass;
  double rate = 10;
  double rate_cap = 0;
  std::optional<std::uint64_t> count;
  std::optional<double> duration;
  std::string sizes = "64,1024,16384";
  std::uint32_t timeout_ms = 1000;
  bool event = false;
  std::string secret_file;
  bool json = false;
  std::optional<double> interval;
  std::size_t workers = 4;
  std::uint32_t burst = 1;
  bool no_qp_counter = false;
};

std::string format_seconds(double s) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  if (s < 1e-3) {
    out.precision(1);
    out << s * 1e6 << "us";
  } else if (s < 1) {
    out.precision(2);
    out << s * 1e3 << "ms";
  } else {
    out.precision(3);
    out << s << "s";
  }
  return out.str();
}

std::string tclass_text(const ProbeTargetSample& p) {
  return p.traffic_class ? std::to_string(*p.traffic_class) : "-";
}

std::string retransmit_text(const ProbeTargetSample& p) {
  if (!p.retransmits) return "-";
  std::string text = std::to_string(*p.retransmits) + " (" + p.retransmit_scope;
  if (!p.retransmit_note.empty()) text += ": " + p.retransmit_note;
  return text + ")";
}

Result<std::vector<std::size_t>> parse_sizes(const std::string& text) {
  std::vector<std::size_t> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    std::size_t used = 0;
    unsigned long long v = 0;
    try {
      v = std::stoull(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || v == 0 || v > probes::kProtocolMaxPayload) {
      return Error{EINVAL, "--sizes: bad size \"" + item + "\" (1.." +
                               std::to_string(probes::kProtocolMaxPayload) + " bytes)"};
    }
    out.push_back(static_cast<std::size_t>(v));
  }
  if (out.empty()) return Error{EINVAL, "--sizes: empty list"};
  return out;
}

void print_table(const ProbeResults& r, std::ostream& out) {
  for (const auto& p : r.targets) {
    const auto lost = p.sent - p.answered;
    out << p.target << (p.group.empty() ? "" : " [" + p.group + "]") << "  " << p.transport
        << "  tc=" << tclass_text(p) << "  sent=" << p.sent << " answered=" << p.answered
        << " timed_out=" << p.timed_out << " lost=" << lost;
    if (p.window) {
      const auto& w = *p.window;
      out << "\n    rtt min " << format_seconds(w.min) << "  p50 " << format_seconds(w.p50)
          << "  p90 " << format_seconds(w.p90) << "  p99 " << format_seconds(w.p99) << "  p99.9 "
          << format_seconds(w.p999) << "  max " << format_seconds(w.max);
    } else {
      out << "\n    rtt: no answers";
    }
    out << "\n    retransmits " << retransmit_text(p) << "  connect_failures " << p.connect_failures
        << "  qp_errors " << p.qp_errors;
    for (const auto& [status, n] : p.wc_errors) out << "  wc[" << status << "] " << n;
    if (!p.last_error.empty()) out << "\n    last error: " << p.last_error;
    out << "\n";
  }
  // RDMA next to the TCP baseline of the same target and traffic class.
  for (const auto& tcp : r.targets) {
    if (tcp.transport != "tcp" || !tcp.window) continue;
    for (const auto& rdma : r.targets) {
      if (rdma.target != tcp.target || rdma.transport == "tcp" || !rdma.window ||
          rdma.traffic_class != tcp.traffic_class) {
        continue;
      }
      out << rdma.target << ": " << rdma.transport << " vs tcp  p50 "
          << format_seconds(rdma.window->p50) << " vs " << format_seconds(tcp.window->p50) << " (x"
          << std::setprecision(2) << rdma.window->p50 / tcp.window->p50 << ")  p99 "
          << format_seconds(rdma.window->p99) << " vs " << format_seconds(tcp.window->p99) << " (x"
          << rdma.window->p99 / tcp.window->p99 << ")\n";
    }
  }
  out << "prober: cpu " << std::setprecision(3) << r.cost.cpu_seconds << " s, " << r.cost.qps
      << " QPs, " << r.cost.registered_bytes << " registered bytes, " << r.cost.targets
      << " targets\n";
}

nlohmann::ordered_json results_json(const ProbeResults& r) {
  Snapshot s;
  s.probes = r.targets;
  s.prober = r.cost;
  auto full = snapshot_to_json(s, s.taken);
  return {{"probes", full["probes"]}, {"prober", full["prober"]}};
}

/// One line per stream with the counts since the previous interval.
void print_interval(const ProbeResults& r, std::map<std::string, ProbeTargetSample>& previous,
                    std::ostream& out) {
  const std::time_t now = std::time(nullptr);
  char stamp[16];
  std::strftime(stamp, sizeof stamp, "%H:%M:%S", std::localtime(&now));
  for (const auto& p : r.targets) {
    const std::string key = p.target + "|" + p.transport + "|" + tclass_text(p);
    const ProbeTargetSample before = previous[key];
    out << stamp << " " << p.target << " " << p.transport << " tc=" << tclass_text(p)
        << " sent=" << p.sent - before.sent << " answered=" << p.answered - before.answered
        << " timed_out=" << p.timed_out - before.timed_out << " errors="
        << (p.qp_errors + p.connect_failures) - (before.qp_errors + before.connect_failures);
    if (p.window) {
      out << " p50=" << format_seconds(p.window->p50) << " p99=" << format_seconds(p.window->p99)
          << " max=" << format_seconds(p.window->max);
    }
    if (p.retransmits) {
      // A change of scope starts another count: the delta is against the same scope only.
      const std::uint64_t base =
          before.retransmit_scope == p.retransmit_scope ? before.retransmits.value_or(0) : 0;
      out << " retransmits=" << *p.retransmits - base << "(" << p.retransmit_scope << ")";
    }
    if (!p.connected && !p.last_error.empty()) out << " last_error=\"" << p.last_error << "\"";
    out << "\n";
    previous[key] = p;
  }
  out.flush();
}

/// 0: every probe answered; 1: some lost or failed; 2: a stream answered nothing.
int exit_code_of(const ProbeResults& r) {
  int code = static_cast<int>(ReportExit::healthy);
  for (const auto& p : r.targets) {
    if (p.answered == 0) return static_cast<int>(ReportExit::critical);
    if (p.answered != p.sent || p.connect_failures != 0 || p.qp_errors != 0) {
      code = static_cast<int>(ReportExit::warning);
    }
  }
  return code;
}

int run_probe(const ProbeCommandOptions& o) {
  const auto usage = [](const std::string& message) {
    std::cerr << "rdmatop probe: " << message << "\n";
    return static_cast<int>(ReportExit::usage);
  };
  auto kinds = probes::parse_transport_list(o.transports);
  if (!kinds) return usage("--transport: " + kinds.error().message);
  auto sizes = parse_sizes(o.sizes);
  if (!sizes) return usage(sizes.error().message);

  std::vector<probes::TargetSpec> targets;
  for (const auto& text : o.targets) {
    auto ep = probes::parse_endpoint(text, probes::kDefaultProbePort);
    if (!ep) return usage("target \"" + text + "\": " + ep.error().message);
    probes::TargetSpec t;
    t.target = text;
    t.endpoint = *ep;
    targets.push_back(std::move(t));
  }
  if (!o.targets_file.empty()) {
    probes::TargetFile file(o.targets_file);
    const auto list = file.poll();
    for (const auto& e : list->errors) std::cerr << "rdmatop probe: " << e << "\n";
    if (list->unreadable) return usage("--targets: cannot use " + o.targets_file);
    targets.insert(targets.end(), list->targets.begin(), list->targets.end());
  }
  if (targets.empty()) return usage("no targets (give TARGET... or --targets FILE)");

  probes::RunnerOptions ro;
  ro.factory = probes::default_transport_factory();
  if (!o.no_qp_counter) ro.qp_counter_binder = probes::netlink_qp_counter_binder();
  ro.probe.traffic_class = o.tclass;
  ro.probe.busy_poll = !o.event;
  if (!o.secret_file.empty()) {
    // A secret is one line; 64 KiB bounds what a wrong path can make us read.
    auto secret = read_bounded_file(o.secret_file, 64 * 1024);
    if (!secret) return usage("--secret-file: " + secret.error().message);
    ro.probe.shared_secret = secret->substr(0, secret->find('\n'));
  }
  ro.schedule.rate_per_stream = o.rate;
  ro.schedule.rate_cap = o.rate_cap;
  ro.schedule.sizes = *sizes;
  ro.timeout = std::chrono::milliseconds(o.timeout_ms);
  ro.connect_timeout = std::max(std::chrono::milliseconds(2000), ro.timeout);
  ro.workers = o.workers;
  ro.burst = o.burst;
  const bool continuous = o.interval && !o.count && !o.duration;
  if (!continuous && !o.duration) ro.max_probes_per_stream = o.count.value_or(10);

  // No monitor ticks here: the command reads the RDMA ports' counters and their bound QP
  // counters itself, once before the probes start (the baseline) and at every printed sample.
  const HostSources sources(o.sources);
  struct Readings {
    probes::PortRetransmits ports;
    probes::QpRetransmits qps;
  };
  const auto read_counters = [ctx = sources.context()] {
    Snapshot snapshot;
    collect_rdma_sysfs(ctx, snapshot);
    collect_qp_counters(ctx, snapshot, list_rdma_devices(ctx));
    return Readings{probes::port_retransmits(snapshot), probes::qp_retransmits(snapshot)};
  };

  // Block the stop signals before the runner's threads start so they inherit the mask and
  // only sigtimedwait() below sees them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  probes::Runner runner(ro);
  runner.set_streams(probes::expand_streams(targets, *kinds, o.tclass));
  {
    const auto baseline = read_counters();
    runner.sample(&baseline.ports, &baseline.qps);
  }
  runner.start();

  using clock = std::chrono::steady_clock;
  const auto started = clock::now();
  const auto deadline = o.duration ? started + std::chrono::duration_cast<clock::duration>(
                                                   std::chrono::duration<double>(*o.duration))
                                   : clock::time_point::max();
  auto next_line = o.interval ? started + std::chrono::duration_cast<clock::duration>(
                                              std::chrono::duration<double>(*o.interval))
                              : clock::time_point::max();
  std::map<std::string, ProbeTargetSample> previous;
  bool interrupted = false;
  while (true) {
    const auto now = clock::now();
    if (now >= deadline || runner.finished()) break;
    if (now >= next_line) {
      const auto readings = read_counters();
      const auto r = runner.sample(&readings.ports, &readings.qps);
      if (o.json) {
        std::cout << results_json(r).dump() << std::endl;
      } else {
        print_interval(r, previous, std::cout);
      }
      next_line +=
          std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(*o.interval));
    }
    // Wake every 50 ms to see finished(), or at the next line/deadline, or on a signal.
    const auto wake = std::min({now + std::chrono::milliseconds(50), next_line, deadline});
    const auto wait_ns =
        std::max<std::int64_t>(0, std::chrono::nanoseconds(wake - clock::now()).count());
    const timespec ts{static_cast<time_t>(wait_ns / 1'000'000'000),
                      static_cast<long>(wait_ns % 1'000'000'000)};
    if (sigtimedwait(&stop_signals, nullptr, &ts) > 0) {
      interrupted = true;
      break;
    }
  }
  runner.stop();
  const auto readings = read_counters();
  const auto r = runner.sample(&readings.ports, &readings.qps);
  if (o.interval) {
    // The tail since the last line, so the lines add up to the totals.
    if (o.json) {
      std::cout << results_json(r).dump() << std::endl;
    } else {
      print_interval(r, previous, std::cout);
    }
  } else if (o.json) {
    std::cout << results_json(r).dump(2) << "\n";
  } else {
    print_table(r, std::cout);
  }
  if (interrupted) std::cerr << "rdmatop probe: stopped by signal\n";
  // A continuous run's window is only the tail: judge the exit code on the cumulative counts.
  return exit_code_of(r);
}

}  // namespace

void register_probe_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ProbeCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "probe", "Active RC/TCP latency probes against rdmatop responders (docs/probes.md)");
  cmd->add_option("targets", o->targets,
                  "Responders: host or host:port (default port " +
                      std::to_string(probes::kDefaultProbePort) + ")");
  cmd->add_option("--targets", o->targets_file,
                  "Target file: one host[:port] per line, or YAML with groups (.yaml/.yml)");
  cmd->add_option("--transport", o->transports,
                  "Comma-separated transports: rc_send, rc_write, tcp (side by side)")
      ->capture_default_str();
  cmd->add_option("--tclass", o->tclass,
                  "Traffic class / IPv4 TOS byte (DSCP << 2), to probe one priority")
      ->check(CLI::Range(0, 255));
  cmd->add_option("--rate", o->rate, "Probes per second per stream")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 100000.0));
  cmd->add_option("--rate-cap", o->rate_cap, "Global probes per second (0: no cap)")
      ->check(CLI::Range(0.0, 1e6));
  auto* count =
      cmd->add_option("--count", o->count,
                      "Probe rounds per stream (each --burst pings), then print (default 10)")
          ->check(CLI::Range(1, 100000000));
  cmd->add_option("--duration", o->duration, "Probe for this many seconds, then print")
      ->check(CLI::Range(0.01, 1e7))
      ->excludes(count);
  cmd->add_option("--burst", o->burst,
                  "Pings per probe round, back to back on one connection, each counted and timed "
                  "on its own (a round stops at the first unanswered ping)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--sizes", o->sizes, "Payload sizes in bytes, rotated per stream")
      ->capture_default_str();
  cmd->add_option("--timeout", o->timeout_ms, "Per-probe timeout in milliseconds")
      ->capture_default_str()
      ->check(CLI::Range(1, 600000));
  cmd->add_flag("--event", o->event,
                "Completion events (ibv_req_notify_cq) instead of busy polling");
  cmd->add_option("--secret-file", o->secret_file,
                  "Shared secret for the responder's handshake (first line of the file)");
  cmd->add_flag("--json", o->json, "JSON output (one object; one line per interval)");
  cmd->add_option("--interval", o->interval,
                  "Print a line per stream every S seconds; without --count/--duration, run "
                  "until SIGINT/SIGTERM")
      ->check(CLI::Range(0.1, 3600.0));
  cmd->add_option("--workers", o->workers, "Probe threads (a dead target holds one)")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  cmd->add_flag("--no-qp-counter", o->no_qp_counter,
                "Do not bind the probe QPs to counters of their own (RDMA netlink, needs "
                "CAP_NET_ADMIN): retransmits are then port-level unless the port's auto mode "
                "binds them");
  add_source_options(*cmd, o->sources);
  cmd->callback([o, &exit_code] { exit_code = run_probe(*o); });
}

}  // namespace rdmatop
