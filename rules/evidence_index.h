// Evidence lookup for one rule evaluation: the rule's input series, indexed so that finding the
// inputs that agree with an alert's labels costs O(matches), not O(inputs) per alert. With
// 17,000 alerts over 131,000 inputs (1,000 ports, every rule firing) the linear scan per alert
// was 4.5 s of CPU per tick (bench/README.md).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "rules/finding.h"
#include "rules/promql/value.h"

namespace rdmatop {

class EvidenceIndex {
 public:
  /// `inputs`: the rule's selectors at their latest values, in expression order.
  explicit EvidenceIndex(std::vector<promql::Vector> inputs);

  /// Every input sample whose labels agree with `alert_labels` on every label both carry (a
  /// label the sample lacks agrees), in input order, each series once, at most `max`.
  std::vector<Evidence> pick(const Labels& alert_labels, std::size_t max);

 private:
  /// Positions in samples_ of the samples that carry exactly the same label names: within a
  /// shape, "agrees on every label both carry" is equality on a fixed list of names.
  struct Shape {
    std::vector<std::string> names;  ///< sorted, non-empty values only
    std::vector<std::size_t> members;
    /// Projected names (alert names ∩ shape names) -> projected values -> members, built on
    /// first use; the alerts of one rule share their label names, so usually once per rule.
    std::map<std::vector<std::string>, std::unordered_map<std::string, std::vector<std::size_t>>>
        by_projection;
  };

  std::vector<promql::Vector> inputs_;
  std::vector<const promql::Sample*> samples_;  ///< all inputs flattened, in input order
  std::vector<Shape> shapes_;
};

}  // namespace rdmatop
