#include "probes/scheduler.h"

#include <algorithm>
#include <stdexcept>

namespace rdmatop::probes {

namespace {

std::chrono::nanoseconds period_of(double rate) {
  return std::chrono::nanoseconds(static_cast<std::int64_t>(1e9 / rate));
}

}  // namespace

Scheduler::Scheduler(ScheduleOptions options, Clock clock)
    : options_(std::move(options)), clock_(std::move(clock)), rng_(options_.seed) {
  if (!(options_.rate_per_stream > 0)) throw std::invalid_argument("rate must be > 0");
  if (!(options_.jitter >= 0 && options_.jitter < 1)) {
    throw std::invalid_argument("jitter must be in [0, 1)");
  }
  if (options_.rate_cap < 0) throw std::invalid_argument("rate cap must be >= 0");
  if (options_.sizes.empty()) throw std::invalid_argument("no payload sizes");
  // A tenth of a second's worth of probes may go out back to back after an idle spell; at
  // least one, so a cap below 10/s still sends.
  burst_ = std::max(1.0, options_.rate_cap / 10);
  tokens_ = burst_;
  refilled_ = clock_();
}

std::chrono::nanoseconds Scheduler::jittered(std::chrono::nanoseconds period) {
  std::uniform_real_distribution<double> u(-options_.jitter, options_.jitter);
  return std::chrono::nanoseconds(
      static_cast<std::int64_t>(static_cast<double>(period.count()) * (1 + u(rng_))));
}

void Scheduler::add_stream(std::uint64_t id, std::optional<double> rate) {
  if (streams_.count(id) != 0) return;
  const double r = rate.value_or(options_.rate_per_stream);
  if (!(r > 0)) throw std::invalid_argument("stream rate must be > 0");
  Stream s;
  s.period = period_of(r);
  std::uniform_real_distribution<double> phase(0, 1);
  const TimePoint due = clock_() + std::chrono::nanoseconds(static_cast<std::int64_t>(
                                       phase(rng_) * static_cast<double>(s.period.count())));
  s.generation = next_generation_++;
  push({due, id, s.generation});
  streams_.emplace(id, s);
}

void Scheduler::remove_stream(std::uint64_t id) {
  streams_.erase(id);  // its queue entry is dropped when it comes up
  drop_stale();
}

void Scheduler::push(const Entry& entry) {
  queue_.push_back(entry);
  std::push_heap(queue_.begin(), queue_.end(), DueLater{});
}

void Scheduler::drop_stale() {
  while (!queue_.empty()) {
    const Entry& top = queue_.front();
    const auto it = streams_.find(top.stream);
    if (it != streams_.end() && it->second.generation == top.generation) return;
    std::pop_heap(queue_.begin(), queue_.end(), DueLater{});
    queue_.pop_back();
  }
}

void Scheduler::refill(TimePoint now) {
  if (options_.rate_cap <= 0) return;
  const double elapsed = std::chrono::duration<double>(now - refilled_).count();
  if (elapsed > 0) tokens_ = std::min(burst_, tokens_ + elapsed * options_.rate_cap);
  refilled_ = now;
}

std::vector<DueProbe> Scheduler::take_due() {
  const TimePoint now = clock_();
  refill(now);
  std::vector<DueProbe> out;
  while (!queue_.empty() && queue_.front().due <= now) {
    if (options_.rate_cap > 0) {
      if (tokens_ < 1) break;
      tokens_ -= 1;
    }
    std::pop_heap(queue_.begin(), queue_.end(), DueLater{});
    const Entry entry = queue_.back();
    queue_.pop_back();
    const std::uint64_t id = entry.stream;
    Stream& s = streams_.at(id);  // the top is never stale: every change ends with drop_stale
    out.push_back({id, options_.sizes[s.next_size]});
    s.next_size = (s.next_size + 1) % options_.sizes.size();
    // Keep the long-run rate when slightly late; when more than a period behind (capped or
    // stalled), restart from now instead of firing a burst of catch-up probes.
    TimePoint due = entry.due + jittered(s.period);
    if (due < now - s.period) due = now + jittered(s.period);
    push({due, id, s.generation});
    drop_stale();
  }
  return out;
}

std::optional<Scheduler::TimePoint> Scheduler::next_due() const {
  if (queue_.empty()) return std::nullopt;
  TimePoint next = queue_.front().due;  // never stale: every change ends with drop_stale
  if (options_.rate_cap > 0 && tokens_ < 1) {
    const auto wait = std::chrono::duration<double>((1 - tokens_) / options_.rate_cap);
    next = std::max(next, refilled_ + std::chrono::duration_cast<std::chrono::nanoseconds>(wait));
  }
  return next;
}

}  // namespace rdmatop::probes
