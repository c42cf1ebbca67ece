#include "rules/selection_cache.h"

#include "rules/promql/value.h"

namespace rdmatop {

namespace {

std::uint64_t hash_matchers(const std::vector<promql::LabelMatcher>& matchers) {
  std::uint64_t h = 0;
  for (const auto& m : matchers) {
    h = promql::hash_label(h, m.name, m.value) + static_cast<std::uint64_t>(m.op);
  }
  return h;
}

/// The regex is compiled from the value: name, operator and value say all.
bool same_matchers(const std::vector<promql::LabelMatcher>& a,
                   const std::vector<promql::LabelMatcher>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].op != b[i].op || a[i].value != b[i].value) return false;
  }
  return true;
}

}  // namespace

const SelectionCache::Selection* SelectionCache::find(
    const std::vector<promql::LabelMatcher>& matchers, std::uint64_t generation) {
  if (generation != generation_) {
    selections_.clear();
    generation_ = generation;
    return nullptr;
  }
  const auto [first, last] = selections_.equal_range(hash_matchers(matchers));
  for (auto it = first; it != last; ++it) {
    if (same_matchers(it->second.matchers, matchers)) return &it->second.series;
  }
  return nullptr;
}

const SelectionCache::Selection& SelectionCache::store(
    const std::vector<promql::LabelMatcher>& matchers, Selection series) {
  if (selections_.size() >= kMaxSelections) selections_.clear();
  return selections_.emplace(hash_matchers(matchers), Entry{matchers, std::move(series)})
      ->second.series;
}

}  // namespace rdmatop
