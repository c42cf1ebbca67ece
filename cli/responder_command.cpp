// `rdmatop responder`: the echo service probers connect to (docs/cli.md, docs/probe-protocol.md).
// One thread per listener (TCP and rdma_cm, same port number); the main thread only waits for
// SIGINT/SIGTERM, then stops both and prints what they did.
#include <pthread.h>

#include <atomic>
#include <csignal>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "cli/commands.h"
#include "pipeline/tick.h"
#include "probes/rdma_responder.h"
#include "probes/tcp_responder.h"
#include "probes/transport.h"
#include "rules/rule_set.h"

namespace rdmatop {
namespace {

struct ResponderCommandOptions {
  std::string listen = "0.0.0.0";
  std::uint16_t port = probes::kDefaultProbePort;
  std::string secret_file;
  std::vector<std::string> allow;
  std::uint32_t max_connections = probes::ResponderLimits{}.max_connections;
  std::uint32_t max_connections_per_peer = probes::ResponderLimits{}.max_connections_per_peer;
  std::uint32_t max_payload = probes::ResponderLimits{}.max_payload;
  bool tcp_only = false;
  bool rdma_only = false;
  bool busy_poll = false;
};

std::string describe(const probes::ResponderStats& s) {
  return fmt::format("accepted {}, refused {}, echoed {}", s.accepted, s.refused, s.echoed);
}

Result<probes::ResponderLimits> limits_from(const ResponderCommandOptions& options) {
  probes::ResponderLimits limits;
  limits.max_connections = options.max_connections;
  limits.max_connections_per_peer = options.max_connections_per_peer;
  limits.max_payload = options.max_payload;
  for (const auto& text : options.allow) {
    auto cidr = probes::parse_cidr(text);
    if (!cidr) return Error{cidr.error().code, "--allow: " + cidr.error().message};
    limits.allow.push_back(*cidr);
  }
  if (!options.secret_file.empty()) {
    auto secret = read_text_file(options.secret_file);
    if (!secret) return Error{secret.error().code, "--secret-file: " + secret.error().message};
    // A trailing newline from `echo secret > file` is not part of the secret.
    std::string value = *secret;
    while (!value.empty() && (value.back() == '\n' || value.back() == '\r')) value.pop_back();
    if (value.empty()) return Error{EINVAL, "--secret-file: the file is empty"};
    limits.shared_secret = std::move(value);
  }
  return limits;
}

int run_responder(const ResponderCommandOptions& options) {
  auto limits = limits_from(options);
  if (!limits) {
    std::cerr << "rdmatop responder: " << limits.error().message << "\n";
    return static_cast<int>(ReportExit::usage);
  }
  // Block the stop signals before any thread starts; sigwait() below is where they land.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  std::mutex log_mutex;
  const probes::ResponderLog log = [&log_mutex](const std::string& line) {
    std::lock_guard lock(log_mutex);
    std::cerr << "rdmatop responder: " << line << std::endl;
  };
  std::unique_ptr<probes::TcpResponder> tcp;
  std::unique_ptr<probes::RdmaResponder> rdma;
  if (!options.rdma_only) {
    auto listening = probes::TcpResponder::listen(options.listen, options.port, *limits, log);
    if (!listening) {
      std::cerr << "rdmatop responder: tcp: " << listening.error().message << "\n";
      return static_cast<int>(ReportExit::no_data);
    }
    tcp = std::move(listening).value();
  }
  if (!options.tcp_only) {
    auto listening = probes::RdmaResponder::listen(options.listen, options.port, *limits, log,
                                                   options.busy_poll);
    if (listening) {
      rdma = std::move(listening).value();
    } else if (options.rdma_only) {
      std::cerr << "rdmatop responder: rdma: " << listening.error().message << "\n";
      return static_cast<int>(ReportExit::no_data);
    } else {
      // A host without RDMA still serves the TCP baseline.
      log(fmt::format("rdma listener unavailable ({}); serving tcp only",
                      listening.error().message));
    }
  }
  log(fmt::format("listening on {} port {}: {}{}{}", options.listen, options.port, tcp ? "tcp" : "",
                  tcp && rdma ? " + " : "", rdma ? "rdma_cm" : ""));
  std::atomic<bool> stop{false};
  std::thread tcp_thread;
  std::thread rdma_thread;
  if (tcp) tcp_thread = std::thread([&] { tcp->run(stop); });
  if (rdma) rdma_thread = std::thread([&] { rdma->run(stop); });
  int signal = 0;
  sigwait(&stop_signals, &signal);
  stop = true;
  if (tcp_thread.joinable()) tcp_thread.join();
  if (rdma_thread.joinable()) rdma_thread.join();
  if (tcp) log("stopped tcp: " + describe(tcp->stats()));
  if (rdma) log("stopped rdma: " + describe(rdma->stats()));
  return 0;
}

}  // namespace

void register_responder_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ResponderCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "responder", "Answer active probes (rdmatop probe) over RDMA (rdma_cm, RC) and TCP");
  cmd->add_option("--listen", options->listen, "Address to listen on")->capture_default_str();
  cmd->add_option("--port", options->port, "Port for both rdma_cm and TCP")->capture_default_str();
  cmd->add_option("--secret-file", options->secret_file,
                  "File holding a shared secret every prober must prove");
  cmd->add_option("--allow", options->allow,
                  "Only accept probers from these CIDRs (repeatable, e.g. 10.0.0.0/16)");
  cmd->add_option("--max-connections", options->max_connections,
                  "Most concurrent probe connections per listener")
      ->capture_default_str()
      ->check(CLI::Range(1U, 65535U));
  cmd->add_option("--max-connections-per-peer", options->max_connections_per_peer,
                  "Most concurrent probe connections from one address per listener (its share "
                  "of --max-connections)")
      ->capture_default_str()
      ->check(CLI::Range(1U, 65535U));
  cmd->add_option("--max-payload", options->max_payload, "Largest ping payload granted, bytes")
      ->capture_default_str()
      ->check(CLI::Range(1U, static_cast<unsigned>(probes::kProtocolMaxPayload)));
  auto* tcp_only = cmd->add_flag("--tcp-only", options->tcp_only, "Serve only the TCP baseline");
  auto* rdma_only = cmd->add_flag("--rdma-only", options->rdma_only, "Serve only rdma_cm");
  tcp_only->excludes(rdma_only);
  cmd->add_flag("--busy-poll", options->busy_poll,
                "RDMA: spin over the completion queues instead of sleeping on completion events "
                "(one core at 100%; the lowest echo latency, like a perftest server without -e)")
      ->excludes(tcp_only);
  cmd->callback([options, &exit_code] { exit_code = run_responder(*options); });
}

}  // namespace rdmatop
