// The exporter's service end to end in one process: the simulator's host through the real
// collectors, rules and PFC fast path (Monitor), ExporterService's poll thread and HTTP server,
// scraped over loopback.
#include "exporters/prometheus/exporter_service.h"

#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "probes/tcp_socket.h"
#include "rules/rule_set.h"
#include "simulator/builtin_scenarios.h"
#include "simulator/sim_sources.h"
#include "simulator/simulator.h"

using namespace rdmatop;
using namespace std::chrono_literals;

namespace {

/// GET `path` with Connection: close; the whole answer, or "" on any failure. No Catch
/// assertion: it runs on the exporter's poll thread.
std::string http_get(std::uint16_t port, const std::string& path) {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  auto fd = probes::tcp_connect("127.0.0.1", port, "", deadline);
  if (!fd) return "";
  const std::string request = "GET " + path + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
  const std::span bytes(reinterpret_cast<const std::uint8_t*>(request.data()), request.size());
  if (probes::send_all(fd->get(), bytes, deadline)) return "";
  std::string answer;
  char buffer[16384];
  for (;;) {
    if (probes::wait_fd(fd->get(), POLLIN, deadline)) return "";
    const ssize_t n = ::recv(fd->get(), buffer, sizeof(buffer), 0);
    if (n == 0) return answer;
    if (n < 0 && errno != EINTR && errno != EAGAIN) return "";
    if (n > 0) answer.append(buffer, static_cast<std::size_t>(n));
  }
}

std::set<std::string> firing_rules(const PublishedTick& tick) {
  std::set<std::string> out;
  for (const Finding& f : tick.findings) {
    if (f.state == FindingState::firing) out.insert(f.rule);
  }
  return out;
}

}  // namespace

TEST_CASE("exporter: a storm the fast path finds between collections is served at once",
          "[exporter]") {
  const sim::Scenario* scenario = sim::find_builtin_scenario("pfc-storm");
  REQUIRE(scenario != nullptr);
  auto simulator = sim::Simulator::create(*scenario);
  REQUIRE(simulator);
  RuleSetLoad rules = load_rule_set({}, true);
  REQUIRE(rules.errors.empty());

  // A fast poll that republished the tick with findings the tick before it did not have, and
  // the page scraped right then (on the poll thread, between two collections).
  struct Republished {
    std::set<std::string> new_findings;
    std::string page;
  };
  std::vector<Republished> seen;  // the poll thread's until service.stop() joins it
  std::atomic<std::size_t> seen_count{0};
  std::atomic<std::uint16_t> port{0};
  Monitor* monitor_ptr = nullptr;
  auto fast_hook = [&](std::int64_t t_us) {
    if (monitor_ptr == nullptr) return;
    const auto before = monitor_ptr->latest();
    if (!monitor_ptr->fast_poll(t_us) || before == nullptr || port == 0) return;
    Republished r;
    const std::set<std::string> had = firing_rules(*before);
    for (const std::string& rule : firing_rules(*monitor_ptr->latest())) {
      if (had.count(rule) == 0) r.new_findings.insert(rule);
    }
    if (r.new_findings.empty() || seen.size() >= 3) return;
    r.page = http_get(port, "/metrics");
    seen.push_back(std::move(r));
    seen_count = seen.size();
  };
  Monitor monitor(sim::simulator_provider(**simulator, {}, fast_hook, 0.1),
                  std::move(rules.groups));
  FastPathOptions fast;
  fast.interval_s = 0.1;
  monitor.enable_fast_path(sim::make_simulated_live_ethtool_source((*simulator)->host()), fast);
  monitor_ptr = &monitor;

  ExporterOptions options;
  options.listen = "127.0.0.1:0";
  options.interval_seconds = 0.01;  // simulated seconds pass as fast as the ticks run
  ExporterService service(monitor, options, MetricsOptions{});
  const Result<int> bound = service.start();
  REQUIRE(bound);
  port = static_cast<std::uint16_t>(*bound);
  for (int i = 0; i < 3000 && seen_count == 0; ++i) std::this_thread::sleep_for(10ms);
  service.stop();

  REQUIRE_FALSE(seen.empty());
  for (const Republished& r : seen) {
    REQUIRE_THAT(r.page, Catch::StartsWith("HTTP/1.1 200 OK\r\n"));
    for (const std::string& rule : r.new_findings) {
      INFO(rule << " fired at a fast poll; the page served right after it:\n"
                << r.page.substr(0, 400));
      CHECK(r.page.find("rdmatop_finding{alertname=\"" + rule + "\"") != std::string::npos);
    }
  }
}
