#include "exporters/prometheus/raw_counter_filter.h"

namespace rdmatop {

namespace {

Result<std::optional<AnchoredRegex>> compile(const std::string& pattern, const char* flag) {
  if (pattern.empty()) return std::optional<AnchoredRegex>{};
  auto re = AnchoredRegex::compile(pattern);
  if (!re) {
    return Error{0, std::string(flag) + " '" + pattern + "': not a regular expression (" +
                        re.error().message + ")"};
  }
  return std::optional<AnchoredRegex>{std::move(re).value()};
}

}  // namespace

bool is_per_queue_ethtool_stat(const std::string& name) {
  // The per-queue name shapes of the drivers' ethtool string sets: mlx5e en_stats.c
  // ("rx%d_", "tx%d_", "ch%d_", "rx%d_xsk_"), ice/virtio_net/ixgbe ("rx_queue_%u_",
  // "tx_queue_%u_"), i40e ("rx-%u.", "tx-%u."), bnxt_en (per-ring "[%d]: " prefix).
  static const AnchoredRegex shapes =
      AnchoredRegex::compile(
          R"(((rx|tx|ch|xsk|rxq|txq)[0-9]+_.*)|((rx|tx)_queue_[0-9]+_.*)|((rx|tx)-[0-9]+\..*)|(\[[0-9]+\]: .*))")
          .value();
  return shapes.matches(name);
}

Result<RawCounterFilter> RawCounterFilter::make(const RawCounterFilterOptions& options) {
  auto include = compile(options.include, "--raw-counters");
  if (!include) return include.error();
  auto exclude = compile(options.exclude, "--raw-counters-exclude");
  if (!exclude) return exclude.error();
  RawCounterFilter filter;
  filter.options_ = options;
  filter.include_ = std::move(include).value();
  filter.exclude_ = std::move(exclude).value();
  return filter;
}

RawCounterFilter::RawCounterFilter(const RawCounterFilter& other)
    : options_(other.options_), include_(other.include_), exclude_(other.exclude_) {}

RawCounterFilter& RawCounterFilter::operator=(const RawCounterFilter& other) {
  if (this == &other) return *this;
  options_ = other.options_;
  include_ = other.include_;
  exclude_ = other.exclude_;
  const std::lock_guard<std::mutex> lock(mutex_);
  ethtool_decisions_.clear();
  other_decisions_.clear();
  return *this;
}

bool RawCounterFilter::admits(const std::string& name, bool ethtool_stat) const {
  // Nothing to decide (no pattern, and no per-queue rule for this family): no lookup, no lock.
  if (!include_ && !exclude_ && (!ethtool_stat || options_.per_queue)) return true;
  const std::lock_guard<std::mutex> lock(mutex_);
  // Looked up by the name itself, one map per kind: no key is built per counter.
  auto& decisions = ethtool_stat ? ethtool_decisions_ : other_decisions_;
  if (const auto it = decisions.find(name); it != decisions.end()) return it->second;
  bool keep = !(ethtool_stat && !options_.per_queue && is_per_queue_ethtool_stat(name));
  if (keep && include_) keep = include_->matches(name);
  if (keep && exclude_) keep = !exclude_->matches(name);
  decisions.emplace(name, keep);
  return keep;
}

}  // namespace rdmatop
