// A series' label set, and the immutable shared form a Series carries.
//
// A host's canonical series keep the same labels from one tick to the next until discovery
// changes something: the Normalizer hands each series the label set it gave it last tick
// (normalizer.cpp), so the copies of a series a tick makes (the report's ports, the next tick's
// rate base, the History's arrival record) share one vector instead of each allocating a vector
// and its strings, and a comparison of two series of consecutive ticks is a pointer comparison.
// Building the labels of every series of every tick was the largest cost of normalizing a
// host (9.9 of 27 M instructions per tick at 64 ports, issue 18, bench/README.md).
#pragma once

#include <cstddef>
#include <deque>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace rdmatop {

/// Sorted by label name; no duplicate names.
using Labels = std::vector<std::pair<std::string, std::string>>;

/// Labels shared by every copy: copying is a reference count, never a vector. Reads see a
/// `const Labels&` (the conversion lets it be passed wherever one is taken); a change goes
/// through edit(), which copies the vector first when another holder shares it.
class SharedLabels {
 public:
  using value_type = Labels::value_type;
  using const_iterator = Labels::const_iterator;

  SharedLabels() = default;
  // Implicit, as a vector is: `Series{name, {{"device", "mlx5_0"}}, ...}` keeps compiling.
  SharedLabels(Labels labels);  // NOLINT(google-explicit-constructor)
  SharedLabels(std::initializer_list<value_type> labels);
  /// Labels that `owner` keeps alive: this holder counts on the owner's reference count
  /// (LabelArena).
  SharedLabels(std::shared_ptr<void> owner, Labels& labels) : labels_(std::move(owner), &labels) {}

  operator const Labels&() const { return get(); }  // NOLINT(google-explicit-constructor)
  const Labels& get() const { return labels_ != nullptr ? *labels_ : empty_labels(); }

  const_iterator begin() const { return get().begin(); }
  const_iterator end() const { return get().end(); }
  std::size_t size() const { return get().size(); }
  bool empty() const { return get().empty(); }
  const value_type& operator[](std::size_t i) const { return get()[i]; }

  /// The labels to change, this holder's own (copied first if shared).
  Labels& edit();
  /// Whether both hold the same vector (then they are equal without comparing).
  bool shares_with(const SharedLabels& other) const { return labels_ == other.labels_; }

  friend bool operator==(const SharedLabels& a, const SharedLabels& b) {
    return a.labels_ == b.labels_ || a.get() == b.get();
  }
  friend bool operator==(const SharedLabels& a, const Labels& b) { return a.get() == b; }
  friend auto operator<=>(const SharedLabels& a, const SharedLabels& b) {
    return a.get() <=> b.get();
  }

 private:
  static const Labels& empty_labels();
  std::shared_ptr<Labels> labels_;  ///< null: no labels
};

/// Label sets made together, kept alive by one reference count: every SharedLabels it makes
/// counts on the arena's, not on one of its own. The normalizer makes a port's label sets in
/// one (normalizer.cpp), so that a tick's copies of ~200 series of a port touch one counter:
/// with one counter per label set, each copy was a cache miss, and incrementing them was 4.4%
/// of a collection's samples on the 16-port host, 1.0% with the arenas (issue 18,
/// bench/README.md). A set lives as long as any set of its arena is held; the arena holds
/// nothing else.
class LabelArena {
 public:
  SharedLabels add(Labels labels) {
    if (labels.empty()) return SharedLabels();
    sets_->push_back(std::move(labels));  // a deque: the sets already made do not move
    return SharedLabels(sets_, sets_->back());
  }

 private:
  std::shared_ptr<std::deque<Labels>> sets_ = std::make_shared<std::deque<Labels>>();
};

}  // namespace rdmatop
