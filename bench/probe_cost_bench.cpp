// The prober's own CPU cost per 1,000 targets at 1 probe/s (docs/probes.md "Cost").
//
// TCP streams against one local TcpResponder on loopback: the prober's scheduling, worker pool,
// histogram and sampling work is the same for every transport; only the per-ping syscalls
// differ (RC: post_send/poll_cq in user space instead of send/recv), so this is the prober's
// overhead with a TCP transport, not an RC measurement. The responder runs in this process on
// its own thread; only the prober's threads are counted (ProberCost.cpu_seconds, from
// CLOCK_THREAD_CPUTIME_ID, which also counts sample() on its caller's thread), sampled once a
// second as a 1 s tick does (closing each stream's RTT window: quantiles, histogram buckets, a
// share printed on its own); the responder's CPU is printed next to it.
//
// `--transport null` replaces TCP by a transport that answers every ping at once without a
// system call: what is left is the runner's own cost per probe (scheduling, the hand-off to a
// worker, counting, histograms), the part an RC transport adds its user-space post and poll to.
#include <sys/resource.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "probes/runner.h"
#include "probes/tcp_responder.h"

namespace {

using namespace rdmatop;
using namespace std::chrono_literals;

/// Answers every ping at once: no socket, no queue pair, no system call.
class NullTransport final : public probes::Transport {
 public:
  std::optional<Error> connect(const probes::Endpoint&, std::chrono::milliseconds) override {
    connected_ = true;
    return std::nullopt;
  }
  probes::PingResult ping(std::size_t, std::chrono::milliseconds) override {
    probes::PingResult r;
    r.outcome = probes::PingResult::Outcome::answered;
    r.rtt = 10us;
    return r;
  }
  void disconnect() override { connected_ = false; }
  bool connected() const override { return connected_; }

 private:
  bool connected_ = false;
};

double cpu_seconds(clockid_t clock) {
  timespec ts{};
  ::clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// Samples the runner once a second for `seconds`, as the tick does; returns the CPU those
/// sample() calls took on this thread.
double tick_for(probes::Runner& runner, int seconds) {
  double cpu = 0;
  for (int i = 0; i < seconds; ++i) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const double before = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
    static_cast<void>(runner.sample());
    cpu += cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - before;
  }
  return cpu;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint32_t targets = 1000;
  double rate = 1;
  int warmup_s = 5;
  int measure_s = 20;
  std::string transport = "tcp";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--targets") targets = static_cast<std::uint32_t>(std::atoi(argv[i + 1]));
    if (flag == "--rate") rate = std::atof(argv[i + 1]);
    if (flag == "--warmup") warmup_s = std::atoi(argv[i + 1]);
    if (flag == "--measure") measure_s = std::atoi(argv[i + 1]);
    if (flag == "--transport") transport = argv[i + 1];
  }
  if (transport != "tcp" && transport != "null") {
    std::fprintf(stderr, "--transport: tcp or null, not %s\n", transport.c_str());
    return 2;
  }
  const bool null_transport = transport == "null";
  // Each stream holds two descriptors here (both ends of its loopback connection).
  rlimit nofile{};
  ::getrlimit(RLIMIT_NOFILE, &nofile);
  nofile.rlim_cur = nofile.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &nofile);
  if (nofile.rlim_cur < 2 * static_cast<rlim_t>(targets) + 64) {
    std::fprintf(stderr, "RLIMIT_NOFILE %llu is too low for %u targets\n",
                 static_cast<unsigned long long>(nofile.rlim_cur), targets);
    return 1;
  }

  probes::ResponderLimits limits;
  limits.max_connections = targets + 16;
  limits.max_connections_per_peer = targets + 16;  // every target is 127.0.0.1 here
  limits.peer_connects_per_second = 1e6;
  limits.peer_burst = targets + 16;
  limits.max_registered_bytes = 1ULL << 34;
  auto responder = probes::TcpResponder::listen("127.0.0.1", 0, limits, [](const std::string&) {});
  if (!responder) {
    std::fprintf(stderr, "responder: %s\n", responder.error().message.c_str());
    return 1;
  }
  std::atomic<bool> stop{false};
  std::atomic<double> responder_cpu{0};
  std::thread responder_thread([&] {
    (*responder)->run(stop);
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    responder_cpu = static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  });

  probes::RunnerOptions o;
  o.factory =
      [null_transport](const probes::ProbeOptions& p) -> std::unique_ptr<probes::Transport> {
    if (null_transport) return std::make_unique<NullTransport>();
    return probes::make_tcp_transport(p);
  };
  o.schedule.rate_per_stream = rate;
  o.schedule.sizes = {64, 1024, 16384};
  probes::Runner runner(o);
  std::vector<probes::StreamSpec> streams;
  for (std::uint32_t i = 0; i < targets; ++i) {
    probes::StreamSpec s;
    s.target = "t" + std::to_string(i);  // distinct streams, one responder
    s.endpoint = {"127.0.0.1", (*responder)->port()};
    s.kind = probes::TransportKind::tcp;
    streams.push_back(s);
  }
  runner.set_streams(streams);
  runner.start();
  tick_for(runner, warmup_s);
  const auto before = runner.sample();
  const auto wall0 = std::chrono::steady_clock::now();
  const double proc0 = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
  const double sample_cpu = tick_for(runner, measure_s);
  const auto after = runner.sample();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double proc = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - proc0;
  runner.stop();
  stop = true;
  responder_thread.join();

  std::uint64_t sent = 0, answered = 0, failures = 0, sent0 = 0;
  for (const auto& t : after.targets) {
    sent += t.sent;
    answered += t.answered;
    failures += t.connect_failures + t.qp_errors + t.timed_out;
  }
  for (const auto& t : before.targets) sent0 += t.sent;
  const double prober_cpu = after.cost.cpu_seconds - before.cost.cpu_seconds;
  const double per_probe_us = prober_cpu / static_cast<double>(sent - sent0) * 1e6;
  std::printf("targets %u, %.1f probe/s each, %s, sizes 64/1024/16384 B\n", targets, rate,
              null_transport ? "null transport (the runner alone)" : "tcp on loopback");
  std::printf(
      "measured %.1f s after %d s warm-up: %llu probes (%.0f/s), %llu answered total, "
      "%llu failures total\n",
      wall, warmup_s, static_cast<unsigned long long>(sent - sent0),
      static_cast<double>(sent - sent0) / wall, static_cast<unsigned long long>(answered),
      static_cast<unsigned long long>(failures));
  std::printf(
      "prober CPU: %.3f s in %.1f s = %.2f%% of one core (%.1f us per probe), of which sample() "
      "once a second %.3f s\n",
      prober_cpu, wall, 100 * prober_cpu / wall, per_probe_us, sample_cpu);
  std::printf("per 1,000 targets at 1 probe/s: %.2f%% of one core\n",
              100 * prober_cpu / wall * (1000.0 / targets) / rate);
  std::printf(
      "whole process (prober + responder + this thread): %.2f%% of one core; "
      "responder thread total %.3f s\n",
      100 * proc / wall, responder_cpu.load());
  return 0;
}
