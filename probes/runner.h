// The probe runner: owns one Transport per stream (target x transport kind x traffic class),
// reuses its connection, reconnects with exponential backoff after a connect failure or a QP
// error (keeping the cause in last_error), and runs the scheduled pings on a bounded worker
// pool so a dead target (a connect that waits for its timeout) never stalls the others. A
// stream runs at most one job at a time, so the queue never holds more than one job per stream.
// sample() turns the counts into ProbeTargetSamples (cumulative counters and histogram buckets,
// RTT quantiles of the window since the previous sample) plus the prober's own cost; the
// port retransmit counters come with the tick (with_probes), the runner reads nothing itself.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "collector/model/probe_sample.h"
#include "probes/histogram.h"
#include "probes/qp_counter_binding.h"
#include "probes/scheduler.h"
#include "probes/transport.h"

namespace rdmatop::probes {

/// One probe stream to run.
struct StreamSpec {
  std::string target;  ///< label as configured
  Endpoint endpoint;
  std::string group;
  TransportKind kind = TransportKind::rc_send;
  std::optional<std::uint32_t> traffic_class;
  std::optional<double> rate;  ///< probes/s; none: the schedule's default
};

using TransportFactory = std::function<std::unique_ptr<Transport>(const ProbeOptions&)>;
/// make_tcp_transport for tcp, make_rc_transport for rc_send/rc_write (default_factory.cpp, a
/// file of its own so tests that inject a fake do not link the real transports).
TransportFactory default_transport_factory();
/// An RDMA port: (device, port number).
using PortKey = std::pair<std::string, std::uint32_t>;
/// Port-level retransmit evidence per RDMA port, cumulative, as read in one tick; a port that
/// is missing is unknown (port_retransmits.h builds it from the tick's Snapshot).
using PortRetransmits = std::map<PortKey, std::uint64_t>;
/// A QP: (device, port number, QP number).
using QpKey = std::tuple<std::string, std::uint32_t, std::uint32_t>;
/// The bound counter holding a QP, as read in one tick.
struct QpCounterReading {
  std::uint32_t counter_id = 0;
  std::size_t qps = 0;         ///< QPs bound to the counter (1: the QP's own)
  std::uint64_t evidence = 0;  ///< its cumulative retransmit evidence (as for a port)

  bool operator==(const QpCounterReading&) const = default;
};
/// Per-QP retransmit evidence of bound counters, by QP; a QP that is missing is in no counter
/// with evidence (port_retransmits.h builds it from the tick's Snapshot).
using QpRetransmits = std::map<QpKey, QpCounterReading>;

struct RunnerOptions {
  ProbeOptions probe;  ///< kind and traffic_class are set per stream
  ScheduleOptions schedule;
  std::chrono::milliseconds timeout{1000};  ///< per ping
  std::chrono::milliseconds connect_timeout{2000};
  std::chrono::milliseconds backoff_min{250};  ///< first reconnect delay, doubled per failure
  std::chrono::milliseconds backoff_max{30000};
  std::size_t workers = 4;
  /// Pings per scheduled probe, sent back to back on the stream's connection (each recorded on
  /// its own). 1: one ping per probe. A burst measures the path's latency without the idle gap
  /// before each ping: with spaced pings, the CPUs (and vCPUs) of prober and responder sleep
  /// between pings and the wake-up lands in the RTT, which back-to-back benchmarks such as
  /// perftest's ib_send_lat never see (docs/probes.md, "Spaced and back-to-back").
  std::uint32_t burst = 1;
  /// Stop a stream after this many scheduled probes (0: never); for one-shot runs.
  std::uint64_t max_probes_per_stream = 0;
  TransportFactory factory;  ///< required; default_transport_factory() for the real ones
  /// Binds each new RC QP to a counter of its own (netlink_qp_counter_binder()); empty: no
  /// binding (`--no-qp-counter`), so a QP has its own counter only if the port's auto mode
  /// gave it one.
  QpCounterBinder qp_counter_binder;
  Scheduler::Clock clock;  ///< empty: steady_clock::now
};

struct ProbeResults {
  std::vector<ProbeTargetSample> targets;  ///< sorted by (target, transport, traffic_class)
  ProberCost cost;
};

/// How long the scheduler gathers due probes before handing them to the workers together (one
/// thread wake-up per dispatch, not per probe): a tenth of the shortest gap between two probes
/// of a stream (the fastest stream's interval less the jitter), between 200 us (at very high
/// rates every stream is busy with its previous probe anyway) and 100 ms (the scheduler's
/// longest sleep).
std::chrono::nanoseconds dispatch_period(const ScheduleOptions& schedule,
                                         const std::vector<StreamSpec>& streams);

class Runner {
 public:
  /// Throws std::invalid_argument without a factory, with a zero burst or with bad schedule
  /// options.
  explicit Runner(RunnerOptions options);
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  /// Replaces the stream set. Streams whose (target, kind, traffic class) and options are
  /// unchanged keep their connection and counts; removed ones are closed.
  void set_streams(const std::vector<StreamSpec>& streams);

  /// Starts the scheduling thread and the workers; stop() (or the destructor) joins them.
  void start();
  void stop();
  /// Without threads: runs every probe due now on the calling thread (tests, benches).
  void run_due();

  /// Thread-safe. Closes the RTT window: the next sample's quantiles cover only later probes.
  /// `ports`: this tick's port retransmit counters (none: retransmits stay as they were). An
  /// RDMA stream is credited with its port's increase between ticks; its first tick after it
  /// connected is the baseline, taken from the previous tick's reading of the port when there
  /// was one (so the tick in which it connected counts), else from this one.
  /// `qps`: this tick's bound counters by QP. A stream whose QP has a counter to itself is
  /// credited with that counter instead (scope "qp"), counted from zero when the runner bound
  /// it at connect (the kernel allocated it for this QP), else from its first reading; each
  /// scope keeps its own total, so both series stay monotonic. Otherwise scope "port" with the
  /// reason in retransmit_note.
  ProbeResults sample(const PortRetransmits* ports = nullptr, const QpRetransmits* qps = nullptr);
  /// The RDMA ports the streams have connected on: what `ports` needs to cover.
  std::set<PortKey> probed_ports() const;
  /// True when every stream reached max_probes_per_stream (never when that is 0).
  bool finished() const;

 private:
  struct Stream;
  struct Job {
    std::shared_ptr<Stream> stream;
    std::size_t payload_bytes = 0;
  };
  using Key = std::tuple<std::string, TransportKind, std::optional<std::uint32_t>>;

  void execute(const Job& job);
  /// Counts one ping's outcome; true when the connection must be rebuilt.
  static bool record(Stream& s, const PingResult& r);
  /// Scope "qp" when the tick's bound counters hold the stream's QP in a counter of its own.
  static void credit_qp_counter(Stream& s, const QpRetransmits* qps);
  void scheduler_loop();
  void worker_loop(std::size_t index);
  std::vector<Job> collect_due();
  std::uint64_t now_cpu_ns() const;

  RunnerOptions options_;
  Scheduler::Clock clock_;

  mutable std::mutex mutex_;  ///< guards everything below except the atomics
  Scheduler scheduler_;
  std::map<Key, std::shared_ptr<Stream>> streams_;
  std::unordered_map<std::uint64_t, std::shared_ptr<Stream>> by_id_;  ///< for collect_due
  std::uint64_t next_id_ = 1;
  std::deque<Job> queue_;
  /// The scheduler hands due probes to the workers at most once per this period (runner.cpp
  /// dispatch_period: from the streams' rates).
  std::chrono::nanoseconds dispatch_period_ = std::chrono::milliseconds(100);
  std::condition_variable work_cv_;   ///< workers wait for jobs
  std::condition_variable sched_cv_;  ///< the scheduler waits for the next due time
  bool stopping_ = false;
  std::vector<std::thread> threads_;
  /// CPU time of each runner thread, updated by the thread itself (CLOCK_THREAD_CPUTIME_ID
  /// reads only the calling thread), plus run_due()'s and sample()'s work on foreign threads.
  std::unique_ptr<std::atomic<std::uint64_t>[]> thread_cpu_ns_;
  std::atomic<std::uint64_t> inline_cpu_ns_{0};
  std::mutex ports_mutex_;      ///< guards last_ports_ (sample() may run on any thread)
  PortRetransmits last_ports_;  ///< the previous tick's port counters
};

}  // namespace rdmatop::probes
