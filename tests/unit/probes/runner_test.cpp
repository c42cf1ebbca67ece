#include "probes/runner.h"

#include "probes/port_retransmits.h"
#include "probes/with_probes.h"
#include "tests/support/temp_dir.h"

#include <catch2/catch.hpp>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

namespace rdmatop::probes {
namespace {

using namespace std::chrono_literals;

/// A mock network: per host, whether it accepts connections and what pings return.
struct FakeNet {
  struct Host {
    bool up = true;
    std::chrono::nanoseconds rtt = 100us;
    std::deque<PingResult::Outcome> script;  ///< outcomes to return before answering
    bool block_connect = false;              ///< connect waits until released
  };
  std::mutex mutex;
  std::condition_variable released;
  std::map<std::string, Host> hosts;
  std::map<std::string, int> connects;
  int live = 0;
  std::uint32_t next_qpn = 17;  ///< QP number of the next RDMA connection
};

class FakeTransport final : public Transport {
 public:
  FakeTransport(FakeNet& net, ProbeOptions options) : net_(net), options_(std::move(options)) {}
  ~FakeTransport() override { disconnect(); }

  std::optional<Error> connect(const Endpoint& ep, std::chrono::milliseconds) override {
    std::unique_lock lock(net_.mutex);
    ++net_.connects[ep.host];
    auto& host = net_.hosts[ep.host];
    net_.released.wait(lock, [&] { return !host.block_connect; });
    if (!host.up) return Error{111, "connect: Connection refused"};
    host_ = ep.host;
    connected_ = true;
    ++net_.live;
    if (options_.kind != TransportKind::tcp) qpn_ = net_.next_qpn++;
    return std::nullopt;
  }
  PingResult ping(std::size_t bytes, std::chrono::milliseconds) override {
    PingResult r;
    if (!connected_ || bytes > options_.max_payload) return r;
    const std::lock_guard lock(net_.mutex);
    auto& host = net_.hosts[host_];
    if (!host.up) {
      r.outcome = PingResult::Outcome::qp_error;
      r.error = "peer reset";
      return r;
    }
    if (!host.script.empty()) {
      r.outcome = host.script.front();
      host.script.pop_front();
      if (r.outcome == PingResult::Outcome::wc_error) {
        r.wc_status = "transport retry counter exceeded";
        r.error = "wc: transport retry counter exceeded";
      }
      if (r.outcome == PingResult::Outcome::timed_out) r.error = "no answer in 1000 ms";
      if (r.outcome == PingResult::Outcome::qp_error) r.error = "async event: QP fatal";
      return r;
    }
    r.outcome = PingResult::Outcome::answered;
    r.rtt = host.rtt;
    return r;
  }
  void disconnect() override {
    if (!connected_) return;
    connected_ = false;
    const std::lock_guard lock(net_.mutex);
    --net_.live;
  }
  bool connected() const override { return connected_; }
  std::string local_device() const override {
    return options_.kind == TransportKind::tcp ? "" : "rxe0";
  }
  std::uint32_t local_port() const override { return 1; }
  std::optional<std::uint32_t> qp_num() const override { return qpn_; }
  std::uint64_t registered_bytes() const override {
    return options_.kind == TransportKind::tcp ? 0 : 2 * options_.max_payload;
  }

 private:
  FakeNet& net_;
  ProbeOptions options_;
  std::string host_;
  bool connected_ = false;
  std::optional<std::uint32_t> qpn_;
};

struct Fixture {
  FakeNet net;
  Scheduler::TimePoint now{std::chrono::seconds(100)};
  RunnerOptions options() {
    RunnerOptions o;
    o.schedule.rate_per_stream = 10;
    o.schedule.jitter = 0;
    o.schedule.sizes = {64, 4096};
    o.factory = [this](const ProbeOptions& p) { return std::make_unique<FakeTransport>(net, p); };
    o.clock = [this] { return now; };
    return o;
  }
  /// Steps the fake clock by 10 ms for `total`, running due probes inline.
  void advance(Runner& r, std::chrono::milliseconds total) {
    for (auto t = 0ms; t < total; t += 10ms) {
      now += 10ms;
      r.run_due();
    }
  }
};

StreamSpec stream(const std::string& host, TransportKind kind = TransportKind::rc_send,
                  std::optional<std::uint32_t> tclass = std::nullopt) {
  StreamSpec s;
  s.target = host;
  s.endpoint = {host, kDefaultProbePort};
  s.kind = kind;
  s.traffic_class = tclass;
  return s;
}

const ProbeTargetSample& find(const ProbeResults& r, const std::string& target,
                              const std::string& transport) {
  for (const auto& t : r.targets) {
    if (t.target == target && t.transport == transport) return t;
  }
  FAIL("no sample for " << target << " " << transport);
  throw;
}

TEST_CASE("answered probes fill counters, buckets and the window", "[probes][runner]") {
  Fixture f;
  f.net.hosts["b"].rtt = 2ms;
  Runner r(f.options());
  r.set_streams({stream("b", TransportKind::tcp), stream("a"), stream("b"),
                 stream("a", TransportKind::rc_send, 106)});
  f.advance(r, 1000ms);
  const auto first = r.sample();
  REQUIRE(first.targets.size() == 4);
  // Sorted by (target, transport, traffic class).
  CHECK(first.targets[0].target == "a");
  CHECK_FALSE(first.targets[0].traffic_class.has_value());
  CHECK(first.targets[1].traffic_class == 106u);
  CHECK(first.targets[2].transport == "rc_send");
  CHECK(first.targets[3].transport == "tcp");
  const auto& b = find(first, "b", "rc_send");
  CHECK(b.sent >= 9);
  CHECK(b.sent <= 11);
  CHECK(b.answered == b.sent);
  CHECK(b.timed_out == 0);
  CHECK(b.connected);
  CHECK(b.local_device == "rxe0");
  REQUIRE(b.window.has_value());
  CHECK(b.window->count == b.answered);
  CHECK(b.window->p50 == Approx(2e-3).epsilon(0.01));
  CHECK(b.rtt_sum_seconds == Approx(2e-3 * static_cast<double>(b.answered)));
  REQUIRE(b.bucket_counts.size() == b.bucket_upper_seconds.size());
  for (std::size_t i = 0; i < b.bucket_counts.size(); ++i) {
    CHECK(b.bucket_counts[i] == (b.bucket_upper_seconds[i] >= 2e-3 ? b.answered : 0));
  }
  CHECK(find(first, "b", "tcp").local_device.empty());
  CHECK(first.cost.targets == 2);
  CHECK(first.cost.qps == 3);
  CHECK(first.cost.registered_bytes == 3 * 2 * 4096);
  CHECK(f.net.connects["b"] == 2);  // one per stream, reused for every probe

  // No probes in between: the next window is empty, the cumulative counts stay.
  const auto idle = r.sample();
  CHECK_FALSE(find(idle, "b", "rc_send").window.has_value());
  CHECK(find(idle, "b", "rc_send").bucket_counts == b.bucket_counts);
  f.advance(r, 500ms);
  const auto later = find(r.sample(), "b", "rc_send");
  REQUIRE(later.window.has_value());
  CHECK(later.window->count == later.answered - b.answered);
  CHECK(later.bucket_counts.back() == later.answered);
}

TEST_CASE("a refused connect backs off exponentially and keeps its cause", "[probes][runner]") {
  Fixture f;
  f.net.hosts["dead"].up = false;
  auto o = f.options();
  o.backoff_min = 100ms;
  o.backoff_max = 400ms;
  Runner r(o);
  r.set_streams({stream("dead"), stream("alive")});
  f.advance(r, 2000ms);
  const auto s = r.sample();
  const auto& dead = find(s, "dead", "rc_send");
  CHECK(dead.sent == 0);
  CHECK_FALSE(dead.connected);
  CHECK(dead.last_error.find("Connection refused") != std::string::npos);
  CHECK(dead.last_error.find("dead:19875") != std::string::npos);
  // Backoff 100, 200, 400, 400, ... ms (each rounded up to the next 100 ms probe slot):
  // far fewer attempts than the 20 scheduled probes, more than a handful.
  CHECK(dead.connect_failures >= 5);
  CHECK(dead.connect_failures <= 9);
  CHECK(f.net.connects["dead"] == static_cast<int>(dead.connect_failures));
  CHECK(find(s, "alive", "rc_send").answered >= 19);

  f.net.hosts["dead"].up = true;  // it comes back: the next attempt reconnects
  f.advance(r, 1000ms);
  const auto back = find(r.sample(), "dead", "rc_send");
  CHECK(back.connected);
  CHECK(back.answered >= 4);
  CHECK(back.connect_failures == dead.connect_failures);
}

TEST_CASE("work-completion errors count by status and reconnect", "[probes][runner]") {
  Fixture f;
  using O = PingResult::Outcome;
  f.net.hosts["a"].script = {O::answered, O::wc_error, O::timed_out, O::wc_error, O::qp_error};
  Runner r(f.options());
  r.set_streams({stream("a")});
  f.advance(r, 3000ms);
  const auto results = r.sample();
  const auto& a = results.targets.at(0);
  REQUIRE(a.wc_errors.size() == 1);
  CHECK(a.wc_errors.at("transport retry counter exceeded") == 2);
  CHECK(a.qp_errors == 3);
  CHECK(a.timed_out == 1);
  CHECK(a.sent == a.answered + a.timed_out + a.qp_errors);
  CHECK(a.connected);
  CHECK(f.net.connects["a"] == 4);                 // the first, then one after each QP error
  CHECK(a.last_error == "async event: QP fatal");  // the most recent failure
}

TEST_CASE("reloading the stream set keeps unchanged streams", "[probes][runner]") {
  Fixture f;
  Runner r(f.options());
  r.set_streams({stream("a"), stream("b")});
  f.advance(r, 1000ms);
  const auto before = r.sample();
  auto b_changed = stream("b");
  b_changed.group = "pod-2";  // a changed option makes a new stream
  r.set_streams({stream("a"), b_changed, stream("c")});
  f.advance(r, 1000ms);
  const auto after = r.sample();
  REQUIRE(after.targets.size() == 3);
  CHECK(find(after, "a", "rc_send").sent > find(before, "a", "rc_send").sent);
  CHECK(f.net.connects["a"] == 1);
  CHECK(find(after, "b", "rc_send").group == "pod-2");
  CHECK(find(after, "b", "rc_send").sent <= 11);
  CHECK(f.net.connects["b"] == 2);
  r.set_streams({});
  CHECK(r.sample().targets.empty());
  CHECK(f.net.live == 0);  // removed streams closed their connections
}

TEST_CASE("retransmits are the port counter delta over the stream's life", "[probes][runner]") {
  Fixture f;
  Runner r(f.options());
  r.set_streams({stream("a"), stream("a", TransportKind::tcp)});
  // A tick before the streams connect: its reading is the baseline of the tick they connect in.
  const PortRetransmits before{{{"rxe0", 1}, 1000}, {{"rxe1", 1}, 50}};
  r.sample(&before);
  CHECK(r.probed_ports().empty());
  f.advance(r, 200ms);
  CHECK(r.probed_ports() == std::set<PortKey>{{"rxe0", 1}});
  PortRetransmits tick{{{"rxe0", 1}, 1007}, {{"rxe1", 1}, 90}};
  auto s = r.sample(&tick);
  CHECK(find(s, "a", "rc_send").retransmits == 7u);  // rxe1 is not its port
  CHECK(find(s, "a", "rc_send").retransmit_scope == "port");
  CHECK_FALSE(find(s, "a", "tcp").retransmits.has_value());
  CHECK(find(s, "a", "tcp").retransmit_scope.empty());
  // A tick without the port (not read) leaves the count alone; no table at all too.
  const PortRetransmits other{{{"rxe1", 1}, 99}};
  CHECK(find(r.sample(&other), "a", "rc_send").retransmits == 7u);
  CHECK(find(r.sample(), "a", "rc_send").retransmits == 7u);
  tick[{"rxe0", 1}] = 5;  // reset (driver reload): counting resumes from the new value
  r.sample(&tick);
  tick[{"rxe0", 1}] = 8;
  CHECK(find(r.sample(&tick), "a", "rc_send").retransmits == 10u);
}

TEST_CASE("a stream's first tick is its baseline when the port was not read before",
          "[probes][runner]") {
  Fixture f;
  Runner r(f.options());
  r.set_streams({stream("a")});
  f.advance(r, 200ms);
  const PortRetransmits first{{{"rxe0", 1}, 500}};
  CHECK(find(r.sample(&first), "a", "rc_send").retransmits == 0u);
  const PortRetransmits second{{{"rxe0", 1}, 503}};
  CHECK(find(r.sample(&second), "a", "rc_send").retransmits == 3u);
}

TEST_CASE("a burst sends its pings back to back and stops at the first unanswered one",
          "[probes][runner]") {
  Fixture f;
  f.net.hosts["b"].script = {PingResult::Outcome::answered, PingResult::Outcome::answered,
                             PingResult::Outcome::timed_out};
  auto o = f.options();
  o.burst = 5;
  o.max_probes_per_stream = 2;
  Runner r(o);
  r.set_streams({stream("a"), stream("b")});
  f.advance(r, 1000ms);
  CHECK(r.finished());
  const auto s = r.sample();
  const auto& a = find(s, "a", "rc_send");
  CHECK(a.sent == 10);  // two rounds of five, each ping counted
  CHECK(a.answered == 10);
  REQUIRE(a.window.has_value());
  CHECK(a.window->count == 10);
  // b: round one ends at its timeout (3 sent); round two sends all five.
  const auto& b = find(s, "b", "rc_send");
  CHECK(b.sent == 8);
  CHECK(b.answered == 7);
  CHECK(b.timed_out == 1);
  o.burst = 0;
  CHECK_THROWS_AS(Runner(o), std::invalid_argument);
}

TEST_CASE("a one-shot run stops after its probe count", "[probes][runner]") {
  Fixture f;
  auto o = f.options();
  o.max_probes_per_stream = 5;
  Runner r(o);
  r.set_streams({stream("a"), stream("b")});
  CHECK_FALSE(r.finished());
  f.advance(r, 3000ms);
  CHECK(r.finished());
  for (const auto& t : r.sample().targets) CHECK(t.sent == 5);
}

TEST_CASE("a stalled target does not stall the others (threads)", "[probes][runner]") {
  FakeNet net;
  net.hosts["stuck"].block_connect = true;
  RunnerOptions o;
  o.schedule.rate_per_stream = 200;
  o.workers = 2;
  o.factory = [&net](const ProbeOptions& p) { return std::make_unique<FakeTransport>(net, p); };
  Runner r(o);
  r.set_streams({stream("stuck"), stream("a"), stream("b")});
  r.start();
  // Wait (bounded, not timed) until the live targets made progress while "stuck" hangs.
  bool progressed = false;
  for (int i = 0; i < 1000 && !progressed; ++i) {
    const auto s = r.sample();
    std::uint64_t a = 0, b = 0;
    for (const auto& t : s.targets) {
      if (t.target == "a") a += t.answered;
      if (t.target == "b") b += t.answered;
    }
    progressed = a >= 20 && b >= 20;
    if (!progressed) std::this_thread::sleep_for(10ms);
  }
  CHECK(progressed);
  CHECK(find(r.sample(), "stuck", "rc_send").sent == 0);
  {
    const std::lock_guard lock(net.mutex);
    net.hosts["stuck"].block_connect = false;
  }
  net.released.notify_all();
  r.stop();
  CHECK(r.sample().cost.cpu_seconds > 0);
}

}  // namespace
}  // namespace rdmatop::probes

namespace rdmatop::probes {
namespace {

// Closing the windows of many streams is the prober's work too, done on the tick's thread: a
// runner that never ran a probe has spent CPU once it was sampled.
TEST_CASE("sampling counts its own CPU in the prober's cost", "[probes][runner]") {
  Fixture f;
  Runner r(f.options());
  std::vector<StreamSpec> streams;
  for (int i = 0; i < 2000; ++i) streams.push_back(stream("h" + std::to_string(i)));
  r.set_streams(streams);
  const double first = r.sample().cost.cpu_seconds;
  CHECK(first > 0);
  CHECK(r.sample().cost.cpu_seconds > first);
}

TEST_CASE("port retransmit evidence comes from the tick's snapshot", "[probes][runner]") {
  const auto port = [](std::uint32_t n, CounterMap hw) {
    PortSample p;
    p.port = n;
    p.link_layer = "Ethernet";
    p.hw_counters = std::move(hw);
    return p;
  };
  Snapshot snap;
  DeviceSample rxe;
  rxe.name = "rxe0";
  rxe.driver = "rxe";
  // rxe: completer_retry_err alone (rcvd_seq_err is one of its causes, not added again).
  rxe.ports = {port(1, {{"completer_retry_err", 9}, {"rcvd_seq_err", 4}})};
  DeviceSample mlx5;
  mlx5.name = "mlx5_0";
  mlx5.driver = "mlx5";
  // mlx5: local_ack_timeout_err + packet_seq_err; port 2 has neither (unknown, not zero).
  mlx5.ports = {port(1, {{"local_ack_timeout_err", 1}, {"packet_seq_err", 9}}),
                port(2, {{"out_of_sequence", 3}})};
  snap.devices = {rxe, mlx5};

  const auto all = port_retransmits(snap);
  CHECK(all == PortRetransmits{{{"rxe0", 1}, 9}, {{"mlx5_0", 1}, 10}});
  const std::set<PortKey> wanted{{"mlx5_0", 1}, {"mlx5_0", 2}, {"no_such_dev", 1}};
  CHECK(port_retransmits(snap, &wanted) == PortRetransmits{{{"mlx5_0", 1}, 10}});
  const std::set<PortKey> none;
  CHECK(port_retransmits(snap, &none).empty());
  CHECK(port_retransmits(Snapshot{}).empty());
  CHECK_FALSE(port_retransmit_evidence({}, "rxe0", 1).has_value());
}

}  // namespace
}  // namespace rdmatop::probes

namespace rdmatop::probes {
namespace {

TEST_CASE("targets expand into one stream per transport and traffic class", "[probes][runner]") {
  TargetSpec plain;
  plain.target = "10.0.0.2";
  plain.endpoint = {"10.0.0.2", 19875};
  TargetSpec grouped = plain;
  grouped.target = "10.0.0.3:7";
  grouped.endpoint = {"10.0.0.3", 7};
  grouped.group = "tor-a";
  grouped.rate = 5;
  grouped.transports = {TransportKind::rc_write};
  grouped.traffic_classes = {0, 106};
  const auto streams =
      expand_streams({plain, grouped}, {TransportKind::rc_send, TransportKind::tcp}, 96);
  REQUIRE(streams.size() == 4);
  CHECK(streams[0].kind == TransportKind::rc_send);
  CHECK(streams[0].traffic_class == 96u);
  CHECK(streams[1].kind == TransportKind::tcp);
  CHECK(streams[2].kind == TransportKind::rc_write);
  CHECK(streams[2].traffic_class == 0u);
  CHECK(streams[3].traffic_class == 106u);
  CHECK(streams[3].group == "tor-a");
  CHECK(streams[3].rate == 5.0);
  CHECK(streams[3].endpoint.port == 7);
}

TEST_CASE("with_probes puts the runner's sample into every snapshot", "[probes][runner]") {
  Fixture f;
  auto runner = std::make_shared<Runner>(f.options());
  const test::TempDir dir;
  dir.write("targets.txt", "a\nb:7000\nnot a target\n");
  std::vector<std::string> errors;
  auto reloader = std::make_shared<TargetReloader>(
      dir.file("targets.txt"), std::vector<TransportKind>{TransportKind::rc_send}, std::nullopt,
      runner, [&](const std::string& e) { errors.push_back(e); });
  int calls = 0;
  auto provider = with_probes(
      [&](std::uint64_t seq) -> std::optional<Snapshot> {
        ++calls;
        if (seq > 3) return std::nullopt;
        // The tick's own port counters: what the probes' retransmits are taken from.
        PortSample port;
        port.port = 1;
        port.link_layer = "Ethernet";
        port.hw_counters = {{"completer_retry_err", 100 * seq}};
        DeviceSample rxe;
        rxe.name = "rxe0";
        rxe.driver = "rxe";
        rxe.ports = {port};
        Snapshot s;
        s.seq = seq;
        s.devices = {rxe};
        return s;
      },
      runner, reloader);
  auto first = provider(1);
  REQUIRE(first.has_value());
  CHECK(first->seq == 1);
  REQUIRE(first->devices.size() == 1);  // the tick itself is passed on untouched
  REQUIRE(first->probes.size() == 2);
  CHECK(first->probes[1].target == "b:7000");
  CHECK_FALSE(first->probes[0].retransmits.has_value());  // not connected yet: no port
  REQUIRE(first->prober.has_value());
  CHECK(first->prober->targets == 2);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].find("targets.txt:3:") != std::string::npos);
  f.advance(*runner, 500ms);
  auto second = provider(2);
  REQUIRE(second.has_value());
  CHECK(second->probes[0].answered >= 4);
  // The streams connected on rxe0 port 1 after the first tick, which had not read that port:
  // the second tick is their baseline, the third counts the increase.
  CHECK(second->probes[0].retransmits == 0u);
  auto third = provider(3);
  REQUIRE(third.has_value());
  CHECK(third->probes[0].retransmits == 100u);
  CHECK(third->probes[0].retransmit_scope == "port");
  CHECK_FALSE(provider(4).has_value());
  CHECK(calls == 4);
}

}  // namespace
}  // namespace rdmatop::probes

namespace rdmatop::probes {
namespace {

/// A binder that records its calls and answers `answer`.
struct FakeBinder {
  QpCounterBinding answer;
  std::vector<std::tuple<std::string, std::uint32_t, std::uint32_t>> calls;
  QpCounterBinder binder() {
    return [this](const std::string& device, std::uint32_t port, std::uint32_t qpn) {
      calls.emplace_back(device, port, qpn);
      return answer;
    };
  }
};

TEST_CASE("a QP bound at connect is credited with its own counter (scope qp)",
          "[probes][runner][qp_counter]") {
  Fixture f;
  FakeBinder binder{{9u, ""}, {}};
  auto o = f.options();
  o.qp_counter_binder = binder.binder();
  Runner r(o);
  r.set_streams({stream("a"), stream("a", TransportKind::tcp)});
  f.advance(r, 200ms);
  // Once per RDMA connection, with its device, port and QP; never for TCP.
  REQUIRE(binder.calls.size() == 1);
  CHECK(binder.calls[0] == std::make_tuple(std::string("rxe0"), 1u, 17u));
  PortRetransmits ports{{{"rxe0", 1}, 1000}};
  // The tick's bound counters do not have it yet: not the port either (it is not its scope).
  QpRetransmits qps;
  CHECK_FALSE(find(r.sample(&ports, &qps), "a", "rc_send").retransmits.has_value());
  // Counter 9 was allocated for this QP at the bind: everything it counted is the probe's.
  qps[{"rxe0", 1, 17}] = {9, 1, 4};
  ports[{"rxe0", 1}] = 1500;
  auto s = r.sample(&ports, &qps);
  CHECK(find(s, "a", "rc_send").retransmits == 4u);
  CHECK(find(s, "a", "rc_send").retransmit_scope == "qp");
  CHECK(find(s, "a", "rc_send").retransmit_note.empty());
  CHECK_FALSE(find(s, "a", "tcp").retransmits.has_value());
  qps[{"rxe0", 1, 17}] = {9, 1, 6};
  CHECK(find(r.sample(&ports, &qps), "a", "rc_send").retransmits == 6u);
  // Another QP's counter on the same port is not this stream's.
  qps[{"rxe0", 1, 18}] = {10, 1, 600};
  CHECK(find(r.sample(&ports, &qps), "a", "rc_send").retransmits == 6u);
}

TEST_CASE("a refused bind keeps the port scope with the kernel's reason",
          "[probes][runner][qp_counter]") {
  Fixture f;
  FakeBinder binder{{std::nullopt, "rxe0/1: driver cannot bind QP counters (ENOMEM)"}, {}};
  auto o = f.options();
  o.qp_counter_binder = binder.binder();
  Runner r(o);
  r.set_streams({stream("a")});
  f.advance(r, 200ms);
  REQUIRE(binder.calls.size() == 1);
  const PortRetransmits first{{{"rxe0", 1}, 100}};
  const QpRetransmits none;
  r.sample(&first, &none);
  const PortRetransmits second{{{"rxe0", 1}, 103}};
  const auto s = find(r.sample(&second, &none), "a", "rc_send");
  CHECK(s.retransmits == 3u);
  CHECK(s.retransmit_scope == "port");
  CHECK(s.retransmit_note == "rxe0/1: driver cannot bind QP counters (ENOMEM)");
  // The pings never noticed.
  CHECK(s.answered == s.sent);
  CHECK(s.connect_failures == 0u);
}

TEST_CASE("without binding, a counter of the port's auto mode still counts (scope qp)",
          "[probes][runner][qp_counter]") {
  Fixture f;
  Runner r(f.options());  // no binder: --no-qp-counter
  r.set_streams({stream("a")});
  f.advance(r, 200ms);
  const PortRetransmits ports{{{"rxe0", 1}, 100}};
  QpRetransmits qps;
  // A counter shared with two other QPs (auto mode by type) is not the probe's: port, said why.
  qps[{"rxe0", 1, 17}] = {4, 3, 50};
  auto s = find(r.sample(&ports, &qps), "a", "rc_send");
  CHECK(s.retransmit_scope == "port");
  CHECK(s.retransmits == 0u);
  CHECK(s.retransmit_note == "rxe0/1: QP 17 shares counter 4 with 2 other QPs (auto mode)");
  qps.clear();
  CHECK(find(r.sample(&ports, &qps), "a", "rc_send").retransmit_note == "QP counter binding off");
  // A counter to itself that the runner did not allocate counts from its first reading.
  qps[{"rxe0", 1, 17}] = {5, 1, 50};
  s = find(r.sample(&ports, &qps), "a", "rc_send");
  CHECK(s.retransmit_scope == "qp");
  CHECK(s.retransmits == 0u);
  qps[{"rxe0", 1, 17}] = {5, 1, 53};
  CHECK(find(r.sample(&ports, &qps), "a", "rc_send").retransmits == 3u);
  // A reset counter resumes from its new value.
  qps[{"rxe0", 1, 17}] = {5, 1, 1};
  r.sample(&ports, &qps);
  qps[{"rxe0", 1, 17}] = {5, 1, 2};
  CHECK(find(r.sample(&ports, &qps), "a", "rc_send").retransmits == 4u);
}

TEST_CASE("qp retransmit evidence comes from the tick's bound counters",
          "[probes][runner][qp_counter]") {
  PortSample port;
  port.port = 1;
  port.link_layer = "Ethernet";
  port.hw_counters = {{"local_ack_timeout_err", 100}, {"packet_seq_err", 100}};
  BoundCounter own;
  own.id = 5;
  own.qpns = {17};
  own.hw_counters = {{"local_ack_timeout_err", 2}, {"packet_seq_err", 3}};
  BoundCounter shared;
  shared.id = 6;
  shared.qpns = {18, 19};
  shared.hw_counters = {{"local_ack_timeout_err", 7}};
  BoundCounter silent;  // no retransmit evidence: its QP is left out (unknown, not zero)
  silent.id = 7;
  silent.qpns = {20};
  silent.hw_counters = {{"out_of_sequence", 9}};
  port.bound_counters = {own, shared, silent};
  PortSample port2 = port;
  port2.port = 2;
  DeviceSample mlx5;
  mlx5.name = "mlx5_0";
  mlx5.driver = "mlx5";
  mlx5.ports = {port, port2};
  Snapshot snap;
  snap.devices = {mlx5};

  const QpRetransmits want{{{"mlx5_0", 1, 17}, {5, 1, 5}},
                           {{"mlx5_0", 1, 18}, {6, 2, 7}},
                           {{"mlx5_0", 1, 19}, {6, 2, 7}}};
  const std::set<PortKey> port1{{"mlx5_0", 1}};
  CHECK(qp_retransmits(snap, &port1) == want);
  CHECK(qp_retransmits(snap).size() == 6);
  const std::set<PortKey> none;
  CHECK(qp_retransmits(snap, &none).empty());
  CHECK(qp_retransmits(Snapshot{}).empty());
  // The port's own evidence is untouched by its bound counters.
  CHECK(port_retransmits(snap, &port1) == PortRetransmits{{{"mlx5_0", 1}, 200}});
}

}  // namespace
}  // namespace rdmatop::probes

namespace rdmatop::probes {
namespace {

TEST_CASE("the scheduler gathers due probes for a tenth of the shortest gap", "[probes][runner]") {
  using std::chrono::microseconds;
  using std::chrono::milliseconds;
  ScheduleOptions schedule;  // 1 probe/s per stream, 20% jitter
  const auto at = [](std::optional<double> rate) {
    StreamSpec s;
    s.target = "t";
    s.rate = rate;
    return s;
  };
  // The default rate: gaps of 0.8 s at the least, so 80 ms.
  CHECK(dispatch_period(schedule, {at(std::nullopt)}) == milliseconds(80));
  // The fastest stream decides; a slower one does not.
  CHECK(dispatch_period(schedule, {at(0.1), at(40.0), at(std::nullopt)}) == milliseconds(2));
  schedule.jitter = 0.5;
  CHECK(dispatch_period(schedule, {at(40.0)}) == microseconds(1250));
  // Clamped: no sooner than every 200 us, no later than the scheduler's 100 ms sleep.
  CHECK(dispatch_period(schedule, {at(10000.0)}) == microseconds(200));
  CHECK(dispatch_period(schedule, {at(0.01)}) == milliseconds(100));
  CHECK(dispatch_period(schedule, {}) == milliseconds(100));
}

}  // namespace
}  // namespace rdmatop::probes
