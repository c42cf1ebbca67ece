#include "probes/runner.h"

#include <time.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace rdmatop::probes {

namespace {

std::uint64_t thread_cpu_ns() {
  timespec ts{};
  if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

bool same_stream(const StreamSpec& a, const StreamSpec& b) {
  return a.target == b.target && a.endpoint.host == b.endpoint.host &&
         a.endpoint.port == b.endpoint.port && a.group == b.group && a.kind == b.kind &&
         a.traffic_class == b.traffic_class && a.rate == b.rate;
}

}  // namespace

// A tenth of the shortest gap between two probes of a stream, so one dispatch never holds two
// probes of one stream, and a probe leaves at most that much after its jittered time (with the
// default 20% jitter, less than half the jitter itself). No RTT sees the delay: a ping times
// itself.
std::chrono::nanoseconds dispatch_period(const ScheduleOptions& schedule,
                                         const std::vector<StreamSpec>& streams) {
  double fastest = 0;
  for (const StreamSpec& s : streams) {
    fastest = std::max(fastest, s.rate.value_or(schedule.rate_per_stream));
  }
  const std::chrono::nanoseconds most = std::chrono::milliseconds(100);
  if (fastest <= 0) return most;
  // Consecutive probes of a stream are (1 - jitter) intervals apart at the least (scheduler.h).
  const double shortest_gap_seconds = (1 - schedule.jitter) / fastest;
  const auto tenth = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(0.1 * shortest_gap_seconds));
  return std::clamp<std::chrono::nanoseconds>(tenth, std::chrono::microseconds(200), most);
}

struct Runner::Stream {
  std::uint64_t id = 0;
  StreamSpec spec;
  ProbeOptions options;

  // Touched only by the one job running for this stream (busy is set under Runner::mutex_).
  std::unique_ptr<Transport> transport;
  std::chrono::milliseconds backoff{0};
  Scheduler::TimePoint retry_at{};

  // Guarded by Runner::mutex_.
  bool busy = false;
  std::uint64_t scheduled = 0;

  std::mutex stats_mutex;  ///< guards everything below
  ProbeTargetSample counters;
  LatencyHistogram window;
  std::vector<std::uint64_t> cumulative;
  double rtt_sum = 0;
  std::uint32_t port = 0;
  bool is_rdma = false;
  std::uint64_t registered = 0;
  std::optional<std::uint64_t> retransmit_last;  ///< port counter at the last reading
  std::uint64_t retransmit_total = 0;            ///< scope "port"
  std::optional<std::uint32_t> qpn;              ///< the connection's QP (RDMA)
  QpCounterBinding binding;                      ///< of that QP, at connect
  struct QpReading {
    std::uint32_t counter_id = 0;
    std::uint32_t qpn = 0;
    std::uint64_t evidence = 0;
  };
  std::optional<QpReading> qp_last;       ///< the QP's own counter at the last reading
  std::uint64_t qp_retransmit_total = 0;  ///< scope "qp"
  /// The running job's ping results, kept so a job (one ping each, in a pingmesh) allocates
  /// nothing; only the job that set `busy` touches it.
  std::vector<PingResult> burst_results;

  ~Stream() {
    if (transport) transport->disconnect();
  }
};

Runner::Runner(RunnerOptions options)
    : options_(std::move(options)),
      clock_(options_.clock ? options_.clock : [] { return std::chrono::steady_clock::now(); }),
      scheduler_(options_.schedule, clock_) {
  if (!options_.factory) throw std::invalid_argument("RunnerOptions::factory is required");
  options_.workers = std::max<std::size_t>(options_.workers, 1);
  if (options_.burst == 0) throw std::invalid_argument("RunnerOptions::burst must be >= 1");
  // Transports register buffers of max_payload: exactly what the largest probe needs.
  if (!options_.schedule.sizes.empty()) {
    options_.probe.max_payload =
        *std::max_element(options_.schedule.sizes.begin(), options_.schedule.sizes.end());
  }
  thread_cpu_ns_ = std::make_unique<std::atomic<std::uint64_t>[]>(options_.workers + 1);
}

Runner::~Runner() {
  stop();
}

void Runner::set_streams(const std::vector<StreamSpec>& streams) {
  const std::lock_guard lock(mutex_);
  std::set<Key> wanted;
  for (const auto& spec : streams) {
    Key key{spec.target, spec.kind, spec.traffic_class};
    if (!wanted.insert(key).second) continue;
    const auto it = streams_.find(key);
    if (it != streams_.end() && same_stream(it->second->spec, spec))
      continue;  // unchanged: keep it
    if (it != streams_.end()) {
      scheduler_.remove_stream(it->second->id);
      by_id_.erase(it->second->id);
    }
    auto s = std::make_shared<Stream>();
    s->id = next_id_++;
    s->spec = spec;
    s->options = options_.probe;
    s->options.kind = spec.kind;
    if (spec.traffic_class) s->options.traffic_class = spec.traffic_class;
    s->counters.target = spec.target;
    s->counters.group = spec.group;
    s->counters.transport = to_string(spec.kind);
    s->counters.traffic_class = s->options.traffic_class;
    s->cumulative.assign(LatencyHistogram::bucket_upper_seconds().size(), 0);
    scheduler_.add_stream(s->id, spec.rate);
    by_id_[s->id] = s;
    streams_[key] = std::move(s);
  }
  for (auto it = streams_.begin(); it != streams_.end();) {
    if (wanted.count(it->first) != 0) {
      ++it;
      continue;
    }
    // A job still running keeps its stream alive through the shared_ptr; the transport
    // closes when that job ends.
    scheduler_.remove_stream(it->second->id);
    by_id_.erase(it->second->id);
    it = streams_.erase(it);
  }
  dispatch_period_ = dispatch_period(options_.schedule, streams);
  sched_cv_.notify_all();
}

std::vector<Runner::Job> Runner::collect_due() {
  std::vector<Job> jobs;
  for (const auto& due : scheduler_.take_due()) {
    const auto it = by_id_.find(due.stream);
    if (it == by_id_.end()) continue;
    Stream& s = *it->second;
    if (s.busy) continue;  // the previous probe is still out (a slow connect): skip this one
    if (options_.max_probes_per_stream != 0 && s.scheduled >= options_.max_probes_per_stream) {
      continue;
    }
    ++s.scheduled;
    s.busy = true;
    jobs.push_back({it->second, due.payload_bytes});
  }
  return jobs;
}

bool Runner::record(Stream& s, const PingResult& r) {
  bool reconnect = false;
  const std::lock_guard lock(s.stats_mutex);
  if (r.outcome != PingResult::Outcome::not_connected) ++s.counters.sent;
  switch (r.outcome) {
    case PingResult::Outcome::answered:
      ++s.counters.answered;
      s.window.record(r.rtt);
      break;
    case PingResult::Outcome::timed_out:
      ++s.counters.timed_out;
      s.counters.last_error = r.error.empty() ? "timed out" : r.error;
      break;
    case PingResult::Outcome::wc_error:
      // A failed work completion moves the QP to the error state: count both.
      ++s.counters.wc_errors[r.wc_status.empty() ? "unknown" : r.wc_status];
      ++s.counters.qp_errors;
      s.counters.last_error = r.error.empty() ? r.wc_status : r.error;
      reconnect = true;
      break;
    case PingResult::Outcome::qp_error:
      ++s.counters.qp_errors;
      s.counters.last_error = r.error;
      reconnect = true;
      break;
    case PingResult::Outcome::not_connected:
      s.counters.last_error = r.error.empty() ? "not connected" : r.error;
      reconnect = true;
      break;
  }
  if (reconnect) s.counters.connected = false;
  return reconnect;
}

void Runner::execute(const Job& job) {
  Stream& s = *job.stream;
  const auto now = clock_();
  if (!s.transport || !s.transport->connected()) {
    if (now < s.retry_at) return;  // backing off: this probe is not sent
    s.transport = options_.factory(s.options);
    const auto failed = s.transport->connect(s.spec.endpoint, options_.connect_timeout);
    if (failed) {
      s.transport.reset();
      s.backoff = s.backoff.count() == 0 ? options_.backoff_min
                                         : std::min(s.backoff * 2, options_.backoff_max);
      s.retry_at = clock_() + s.backoff;
      const std::lock_guard lock(s.stats_mutex);
      ++s.counters.connect_failures;
      s.counters.connected = false;
      const std::string where = s.spec.endpoint.host + ":" + std::to_string(s.spec.endpoint.port);
      s.counters.last_error = failed->message.find(where) != std::string::npos
                                  ? failed->message
                                  : "connect " + where + ": " + failed->message;
      return;
    }
    s.backoff = std::chrono::milliseconds(0);
    // Once per connection, before its first ping; a refusal only changes the attribution.
    const bool is_rdma = s.spec.kind != TransportKind::tcp;
    const auto qpn = is_rdma ? s.transport->qp_num() : std::nullopt;
    QpCounterBinding binding;
    if (qpn && options_.qp_counter_binder) {
      binding =
          options_.qp_counter_binder(s.transport->local_device(), s.transport->local_port(), *qpn);
    } else if (qpn) {
      binding.note = "QP counter binding off";
    }
    const std::lock_guard lock(s.stats_mutex);
    s.counters.connected = true;
    s.counters.local_device = s.transport->local_device();
    s.port = s.transport->local_port();
    s.is_rdma = is_rdma;
    s.registered = s.transport->registered_bytes();
    s.qpn = qpn;
    s.binding = std::move(binding);
  }
  // A burst stops at the first ping that is not answered: after a timeout the path is suspect
  // and the next round retries it, after an error the connection is gone. Results are recorded
  // after the burst: work between two pings (the stats lock, the histogram) measurably
  // lengthened the next round trip (docs/probes.md, "Accuracy against perftest").
  std::vector<PingResult>& results = s.burst_results;  // one job of the stream at a time
  results.clear();
  for (std::uint32_t i = 0; i < options_.burst; ++i) {
    results.push_back(s.transport->ping(job.payload_bytes, options_.timeout));
    if (results.back().outcome != PingResult::Outcome::answered) break;
  }
  bool reconnect = false;
  for (const PingResult& r : results) reconnect = record(s, r);
  if (reconnect) {
    s.transport->disconnect();
    s.transport.reset();
    s.backoff = options_.backoff_min;
    s.retry_at = clock_() + s.backoff;
  }
}

void Runner::run_due() {
  const std::uint64_t cpu_before = thread_cpu_ns();
  std::vector<Job> jobs;
  {
    const std::lock_guard lock(mutex_);
    jobs = collect_due();
  }
  for (const auto& job : jobs) {
    execute(job);
    const std::lock_guard lock(mutex_);
    job.stream->busy = false;
  }
  inline_cpu_ns_ += thread_cpu_ns() - cpu_before;
}

void Runner::start() {
  const std::lock_guard lock(mutex_);
  if (!threads_.empty()) return;
  stopping_ = false;
  threads_.emplace_back([this] { scheduler_loop(); });
  for (std::size_t i = 0; i < options_.workers; ++i) {
    threads_.emplace_back([this, i] { worker_loop(i + 1); });
  }
}

void Runner::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  sched_cv_.notify_all();
  for (auto& t : threads_) t.join();
  threads_.clear();
  const std::lock_guard lock(mutex_);
  queue_.clear();
}

void Runner::scheduler_loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    for (auto& job : collect_due()) queue_.push_back(std::move(job));
    // One wake-up per dispatch, not one per job: the woken worker runs jobs until the queue is
    // empty, so a dispatch of quick pings costs one thread wake-up (a wake-up per probe was
    // most of the runner's CPU, bench/README.md). Jobs still queued at the next dispatch mean
    // the awake workers are held up by a target that does not answer: that dispatch wakes one
    // more.
    if (!queue_.empty()) work_cv_.notify_one();
    thread_cpu_ns_[0] = thread_cpu_ns();
    // Wake for the next due probe, and at least every 100 ms so a new stream set is seen; but
    // not sooner than one dispatch period, so the probes due within it go out together.
    const auto now = std::chrono::steady_clock::now();
    auto wake = now + std::chrono::milliseconds(100);
    if (const auto next = scheduler_.next_due()) wake = std::min(wake, *next);
    wake = std::max(wake, now + dispatch_period_);
    sched_cv_.wait_until(lock, wake);
  }
}

void Runner::worker_loop(std::size_t index) {
  std::unique_lock lock(mutex_);
  while (true) {
    work_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    while (!stopping_ && !queue_.empty()) {
      const Job job = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      execute(job);
      lock.lock();
      job.stream->busy = false;
    }
    if (stopping_) return;
    // Once per wake-up, not per job: the thread's CPU clock is a system call (no vDSO).
    thread_cpu_ns_[index] = thread_cpu_ns();
  }
}

bool Runner::finished() const {
  const std::lock_guard lock(mutex_);
  if (options_.max_probes_per_stream == 0) return false;
  return std::all_of(by_id_.begin(), by_id_.end(), [&](const auto& kv) {
    return kv.second->scheduled >= options_.max_probes_per_stream && !kv.second->busy;
  });
}

void Runner::credit_qp_counter(Stream& s, const QpRetransmits* qps) {
  if (qps == nullptr || !s.qpn) return;
  const auto it = qps->find({s.counters.local_device, s.port, *s.qpn});
  if (it == qps->end()) return;
  const QpCounterReading& r = it->second;
  if (r.qps != 1) {
    // Auto mode by QP type or PID puts several QPs in one counter: that is neither this
    // probe's count nor the port's, so the stream keeps the port's.
    if (s.counters.retransmit_scope == "port") {
      s.counters.retransmit_note = s.counters.local_device + "/" + std::to_string(s.port) +
                                   ": QP " + std::to_string(*s.qpn) + " shares counter " +
                                   std::to_string(r.counter_id) + " with " +
                                   std::to_string(r.qps - 1) + " other QPs (auto mode)";
    }
    return;
  }
  if (!s.qp_last || s.qp_last->counter_id != r.counter_id || s.qp_last->qpn != *s.qpn) {
    // A new counter: one the runner bound at connect was allocated for this QP and counted only
    // its traffic, from zero (counters.c alloc_and_bind); any other (auto mode) counts from this
    // reading on.
    const bool ours = s.binding.counter_id == r.counter_id;
    s.qp_last = Stream::QpReading{r.counter_id, *s.qpn, ours ? 0 : r.evidence};
  }
  std::uint64_t& last = s.qp_last->evidence;
  if (r.evidence >= last) s.qp_retransmit_total += r.evidence - last;
  last = r.evidence;
  s.counters.retransmits = s.qp_retransmit_total;
  s.counters.retransmit_scope = "qp";
  s.counters.retransmit_note.clear();
}

std::set<PortKey> Runner::probed_ports() const {
  std::vector<std::shared_ptr<Stream>> streams;
  {
    const std::lock_guard lock(mutex_);
    for (const auto& [key, s] : streams_) streams.push_back(s);
  }
  std::set<PortKey> out;
  for (const auto& s : streams) {
    const std::lock_guard lock(s->stats_mutex);
    if (s->is_rdma && !s->counters.local_device.empty()) {
      out.emplace(s->counters.local_device, s->port);
    }
  }
  return out;
}

ProbeResults Runner::sample(const PortRetransmits* ports, const QpRetransmits* qps) {
  const std::uint64_t cpu_before = thread_cpu_ns();  // closing the windows is the prober's work
  std::vector<std::shared_ptr<Stream>> streams;
  {
    const std::lock_guard lock(mutex_);
    for (const auto& [key, s] : streams_) streams.push_back(s);
  }
  const std::lock_guard ports_lock(ports_mutex_);
  const auto reading = [](const PortRetransmits* table,
                          const PortKey& where) -> std::optional<std::uint64_t> {
    if (table == nullptr) return std::nullopt;
    const auto it = table->find(where);
    if (it == table->end()) return std::nullopt;
    return it->second;
  };
  ProbeResults out;
  out.targets.reserve(streams.size());
  // streams_ is ordered by target first: a target's streams are adjacent.
  std::uint32_t targets = 0;
  const std::string* previous_target = nullptr;
  for (const auto& s : streams) {
    const std::lock_guard lock(s->stats_mutex);
    const PortKey where{s->counters.local_device, s->port};
    if (const auto now = s->is_rdma ? reading(ports, where) : std::nullopt) {
      // Attribution starts with the stream's first tick; reconnects keep counting.
      if (!s->retransmit_last) s->retransmit_last = reading(&last_ports_, where).value_or(*now);
      // A counter that went backwards was reset (driver reload): count from the new value.
      if (*now >= *s->retransmit_last) s->retransmit_total += *now - *s->retransmit_last;
      s->retransmit_last = now;
      // A QP the runner bound is counted by its own counter: while the tick's bound counters
      // have not caught up with the bind, the port is not its scope.
      if (!(s->binding.counter_id && qps != nullptr)) {
        s->counters.retransmits = s->retransmit_total;
        s->counters.retransmit_scope = "port";
        s->counters.retransmit_note = s->binding.note;
      }
    }
    credit_qp_counter(*s, qps);
    ProbeTargetSample sample = s->counters;
    sample.window = s->window.summary();
    s->window.add_cumulative_bucket_counts_to(s->cumulative);
    s->rtt_sum += s->window.sum_seconds();
    s->window.reset();
    sample.bucket_upper_seconds = LatencyHistogram::bucket_upper_seconds();
    sample.bucket_counts = s->cumulative;
    sample.rtt_sum_seconds = s->rtt_sum;
    if (s->counters.connected && s->is_rdma) ++out.cost.qps;
    if (s->counters.connected) out.cost.registered_bytes += s->registered;
    if (previous_target == nullptr || *previous_target != s->spec.target) ++targets;
    previous_target = &s->spec.target;
    out.targets.push_back(std::move(sample));
  }
  if (ports != nullptr) last_ports_ = *ports;
  out.cost.targets = targets;
  inline_cpu_ns_ += thread_cpu_ns() - cpu_before;
  std::uint64_t cpu = inline_cpu_ns_;
  for (std::size_t i = 0; i <= options_.workers; ++i) cpu += thread_cpu_ns_[i];
  out.cost.cpu_seconds = static_cast<double>(cpu) * 1e-9;
  return out;
}

}  // namespace rdmatop::probes
