#include "simulator/probe_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <tuple>
#include <utility>

namespace rdmatop::sim {

namespace {

// Histogram bounds of the simulated prober: 1-2-5 steps from 1 µs to 1 s.
constexpr std::array<double, 19> kBounds = {1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4,
                                            2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2,
                                            5e-2, 0.1,  0.2,  0.5,  1.0};

/// DSCP 26 (priority 3 in the simulated fabric) << 2 | ECT(0): the RoCE traffic class.
constexpr std::uint32_t kRoceTrafficClass = 106;

struct StreamSpec {
  const char* transport;
  bool rdma;
};
constexpr std::array<StreamSpec, 2> kStreams = {{{"rc_send", true}, {"tcp", false}}};

constexpr double kCpuSecondsPerProbe = 20e-6;
constexpr double kRegisteredBytesPerQp = 64 * 1024;

/// One point of the RTT distribution of a window: this RTT for this share of answered probes.
struct RttPoint {
  double rtt;
  double share;
};

/// The peer the port probes: the same /24 as the port's address, host .2 (the simulated host
/// is .1 on every subnet).
std::string peer_of(const PortSpec& spec) {
  const std::size_t dot = spec.ipv4.rfind('.');
  return dot == std::string::npos ? spec.ipv4 : spec.ipv4.substr(0, dot) + ".2";
}

/// Share of probes whose packets were lost at least once (each probe is a request and a
/// response of a few packets), and share lost for longer than the probe timeout.
double retransmitted_share(const PortConditions& c) {
  return std::min(1.0, 100 * c.loss);
}
double timeout_share(const PortConditions& c) {
  return std::min(1.0, 40 * c.loss);
}

/// The RTT distribution of answered probes under the port's conditions. Base RTTs: an RC
/// ping-pong on a 100 GbE NIC takes a few µs (mlx5 ~3 µs, bnxt ~5 µs), a TCP one tens of µs.
/// Pause stretches every RTT by 1/(1 - paused share). A retransmitted RC probe waits for the
/// NAK or ACK timeout round (~2 ms here); a TCP probe, alone in flight, waits for the RTO
/// (200 ms minimum, RFC 6298 as Linux applies it).
std::vector<RttPoint> rtt_points(const PortState& port, bool rdma) {
  const PortConditions& c = port.conditions;
  // Soft-RoCE runs the transport in the kernel's softirq path: about the TCP baseline.
  const double rdma_base = port.spec.kind == NicKind::mlx5      ? 3e-6
                           : port.spec.kind == NicKind::bnxt_re ? 5e-6
                                                                : 25e-6;
  const double base = rdma ? rdma_base : 30e-6;
  const double paused = std::min(0.95, std::max(c.rx_pause, c.tx_pause));
  const double stretched = base / (1 - paused);
  const double retransmitted = retransmitted_share(c);
  const double timed_out = timeout_share(c);
  // Among answered probes, those retransmitted but not timed out.
  const double slow = timed_out >= 1 ? 0 : (retransmitted - timed_out) / (1 - timed_out);
  const double fast = 1 - slow;
  std::vector<RttPoint> points = {
      {stretched, 0.5 * fast}, {1.5 * stretched, 0.4 * fast}, {3 * stretched, 0.1 * fast}};
  if (slow > 0) points.push_back({stretched + (rdma ? 2e-3 : 0.2), slow});
  return points;
}

double quantile(const std::vector<RttPoint>& points, double q) {
  double cumulative = 0;
  for (const RttPoint& p : points) {
    if (p.share <= 0) continue;
    cumulative += p.share;
    if (cumulative >= q - 1e-12) return p.rtt;
  }
  return points.back().rtt;
}

std::string key(const char* transport, const std::string& field) {
  return std::string(transport) + "/" + field;
}

double get(const PortState& port, const char* transport, const std::string& field) {
  const auto it = port.probes.find(key(transport, field));
  return it == port.probes.end() ? 0 : it->second;
}

void advance_stream(PortState& port, const StreamSpec& stream, double dt_s) {
  const PortConditions& c = port.conditions;
  auto& acc = port.probes;
  auto at = [&](const std::string& field) -> double& { return acc[key(stream.transport, field)]; };
  // RDMA needs a routable RoCE v2 GID; without an address TCP cannot connect either.
  const bool reachable = c.link_up && c.routable_gid;
  at("started") = 1;
  if (!reachable) {
    at("connected") = 0;
    at("connect_failures") += dt_s;  // one attempt per second
    at("window") = 0;
    return;
  }
  at("connected") = 1;
  const double sent = kProbesPerSecond * dt_s;
  const double timed_out = sent * timeout_share(c);
  const double answered = sent - timed_out;
  at("sent") += sent;
  at("timed_out") += timed_out;
  at("answered") += answered;
  at("window") = answered;
  if (stream.rdma) {
    at("retransmits") += sent * retransmitted_share(c);
    // A probe that times out has exhausted the QP's retries: the QP goes to error (then the
    // prober reconnects). One in ten here: the others were answered after the probe timeout.
    at("retry_exceeded") += timed_out / 10;
  }
  for (const RttPoint& p : rtt_points(port, stream.rdma)) {
    const double n = answered * p.share;
    at("rtt_sum") += n * p.rtt;
    for (std::size_t i = 0; i < kBounds.size(); ++i) {
      if (p.rtt <= kBounds[i]) at("le" + std::to_string(i)) += n;
    }
  }
}

std::uint64_t whole(double v) {
  return static_cast<std::uint64_t>(std::floor(v));
}

ProbeTargetSample sample_of(const PortState& port, std::size_t index, const StreamSpec& stream) {
  const char* t = stream.transport;
  ProbeTargetSample p;
  p.target = peer_of(port.spec);
  p.group = "tor-" + std::to_string(index + 1);
  p.transport = t;
  if (stream.rdma) {
    p.traffic_class = kRoceTrafficClass;
    p.local_device = port.spec.device;
  }
  p.connected = get(port, t, "connected") > 0;
  p.sent = whole(get(port, t, "sent"));
  p.answered = std::min(p.sent, whole(get(port, t, "answered")));
  p.timed_out = whole(get(port, t, "timed_out"));
  p.connect_failures = whole(get(port, t, "connect_failures"));
  const std::uint64_t retry_exceeded = whole(get(port, t, "retry_exceeded"));
  if (retry_exceeded > 0) {
    p.qp_errors = retry_exceeded;
    p.wc_errors.emplace("transport retry counter exceeded", retry_exceeded);
  }
  if (p.connect_failures > 0) p.last_error = "rdma_resolve_addr: No route to host";
  for (std::size_t i = 0; i < kBounds.size(); ++i) {
    p.bucket_upper_seconds.push_back(kBounds[i]);
    // Cumulative shares summed in floating point: clamp so that no bucket exceeds answered.
    p.bucket_counts.push_back(std::min(p.answered, whole(get(port, t, "le" + std::to_string(i)))));
  }
  p.rtt_sum_seconds = get(port, t, "rtt_sum");
  const std::uint64_t window = whole(get(port, t, "window"));
  if (window > 0) {
    const std::vector<RttPoint> points = rtt_points(port, stream.rdma);
    RttSummary w;
    w.count = window;
    w.min = quantile(points, 0);
    w.p50 = quantile(points, 0.5);
    w.p90 = quantile(points, 0.9);
    w.p99 = quantile(points, 0.99);
    w.p999 = quantile(points, 0.999);
    w.max = quantile(points, 1);
    p.window = w;
  }
  if (stream.rdma) {
    // mlx5 binds the probe QPs to their own counter; bnxt_re has no per-QP counters, so the
    // prober falls back to the port's counter (shared with every other flow on the port).
    p.retransmits = whole(get(port, t, "retransmits"));
    p.retransmit_scope = port.spec.kind == NicKind::mlx5 ? "qp" : "port";
  }
  return p;
}

}  // namespace

void advance_probes(HostModel& host, double dt_s) {
  for (PortState& port : host.ports) {
    for (const StreamSpec& stream : kStreams) advance_stream(port, stream, dt_s);
  }
}

std::vector<ProbeTargetSample> simulated_probes(const HostModel& host) {
  std::vector<ProbeTargetSample> out;
  for (std::size_t i = 0; i < host.ports.size(); ++i) {
    for (const StreamSpec& stream : kStreams) {
      if (get(host.ports[i], stream.transport, "started") > 0) {
        out.push_back(sample_of(host.ports[i], i, stream));
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::tie(a.target, a.transport, a.traffic_class) <
           std::tie(b.target, b.transport, b.traffic_class);
  });
  return out;
}

std::optional<ProberCost> simulated_prober_cost(const HostModel& host) {
  ProberCost cost;
  bool started = false;
  for (const PortState& port : host.ports) {
    for (const StreamSpec& stream : kStreams) {
      if (get(port, stream.transport, "started") == 0) continue;
      started = true;
      cost.cpu_seconds += get(port, stream.transport, "sent") * kCpuSecondsPerProbe;
      if (stream.rdma && get(port, stream.transport, "connected") > 0) ++cost.qps;
    }
    ++cost.targets;
  }
  if (!started) return std::nullopt;
  cost.registered_bytes = static_cast<std::uint64_t>(cost.qps * kRegisteredBytesPerQp);
  return cost;
}

}  // namespace rdmatop::sim
