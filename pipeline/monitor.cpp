#include "pipeline/monitor.h"

#include <utility>

#include "collector/collect.h"
#include "collector/normalize/normalizer.h"

namespace rdmatop {

std::int64_t unix_ms(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

Monitor::Monitor(SnapshotProvider provider, std::vector<RuleGroup> rules,
                 std::vector<std::string> rule_load_errors)
    : provider_(std::move(provider)),
      diagnoser_(std::move(rules)),
      rule_load_errors_(std::move(rule_load_errors)) {}

std::shared_ptr<const PublishedTick> Monitor::step() {
  std::optional<Snapshot> snapshot = provider_(++seq_);
  if (!snapshot) return nullptr;
  Observation current = normalizer_.observe(std::move(*snapshot));
  std::vector<std::string> errors = rule_load_errors_;
  for (auto& e : diagnoser_.observe(current.series, unix_ms(current.snapshot.wall))) {
    errors.push_back(std::move(e));
  }
  // The next tick's rates need this tick's series and time only (build_tick reads nothing
  // else of `first`), so the snapshot, with every raw counter map, moves into the report
  // instead of being copied once per tick.
  spare_rate_base_.snapshot.taken = current.snapshot.taken;
  spare_rate_base_.series = current.series;
  PublishedTick built = build_tick(has_rate_base_ ? &rate_base_ : nullptr, std::move(current),
                                   diagnoser_.findings(), std::move(errors), port_views_);
  built.coverage = diagnoser_.coverage();
  const std::lock_guard<std::mutex> fast_lock(fast_mutex_);
  if (fast_) {
    fast_->set_targets(built.snapshot, spare_rate_base_.series);
    slow_findings_ = built.findings;
    built.findings = fast::merge_findings(std::move(built.findings), fast_->findings());
    built.fast_path = fast_->ports();
    built.fast_interval_seconds = fast_->options().interval_s;
  }
  auto report = std::make_shared<const PublishedTick>(std::move(built));
  std::swap(rate_base_, spare_rate_base_);
  has_rate_base_ = true;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    latest_ = report;
    ++published_;
  }
  return report;
}

void Monitor::enable_fast_path(std::unique_ptr<EthtoolSource> source, FastPathOptions options) {
  const std::lock_guard<std::mutex> fast_lock(fast_mutex_);
  fast_source_ = std::move(source);
  fast_ = std::make_unique<FastPath>(*fast_source_, options);
}

bool Monitor::fast_path_enabled() const {
  const std::lock_guard<std::mutex> fast_lock(fast_mutex_);
  return fast_ != nullptr;
}

double Monitor::fast_interval_seconds() const {
  const std::lock_guard<std::mutex> fast_lock(fast_mutex_);
  return fast_ ? fast_->options().interval_s : 0;
}

std::uint64_t Monitor::fast_reads() const {
  const std::lock_guard<std::mutex> fast_lock(fast_mutex_);
  return fast_ ? fast_->reads() : 0;
}

bool Monitor::fast_poll(std::int64_t t_us) {
  const std::lock_guard<std::mutex> fast_lock(fast_mutex_);
  if (!fast_ || !fast_->poll(t_us)) return false;
  std::shared_ptr<const PublishedTick> base = latest();
  if (!base) return false;
  auto republished = std::make_shared<PublishedTick>(*base);
  republished->findings = fast::merge_findings(slow_findings_, fast_->findings());
  const std::lock_guard<std::mutex> lock(mutex_);
  latest_ = std::move(republished);
  return true;
}

std::shared_ptr<const PublishedTick> Monitor::latest() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return latest_;
}

std::uint64_t Monitor::ticks() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return published_;
}

}  // namespace rdmatop
