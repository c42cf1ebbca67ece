// The series each selector matched, kept while History's set of series stays the same. The
// built-in pack runs its selectors at every tick (and the coverage check runs them again) over
// ~8,000 series whose set almost never changes, so matching every series against every
// selector at every tick was the same answer recomputed.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "rules/promql/ast.h"
#include "rules/promql/storage.h"

namespace rdmatop {

class SelectionCache {
 public:
  using Selection = std::vector<const promql::StoredSeries*>;

  /// The selection stored for `matchers` at this `generation` of the series set, or nullptr.
  /// A new generation forgets every selection of the old one.
  const Selection* find(const std::vector<promql::LabelMatcher>& matchers,
                        std::uint64_t generation);

  /// Stores the selection of `matchers` at the generation of the last find().
  const Selection& store(const std::vector<promql::LabelMatcher>& matchers, Selection series);

  std::size_t size() const { return selections_.size(); }

 private:
  struct Entry {
    std::vector<promql::LabelMatcher> matchers;
    Selection series;
  };

  /// Ad-hoc queries (`rules test`, the TUI's filters) could each add one: past this many the
  /// cache starts again, so it stays the size of a rule pack's selectors.
  static constexpr std::size_t kMaxSelections = 4096;

  /// Keyed by a hash of the matchers, compared exactly on a hit.
  std::unordered_multimap<std::uint64_t, Entry> selections_;
  std::uint64_t generation_ = 0;
};

}  // namespace rdmatop
