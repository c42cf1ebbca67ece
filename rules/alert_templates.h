// The expanded label and annotation templates of one alert rule's alerts, kept from one
// evaluation to the next. An alert's labels rarely change between ticks and most templates do
// not read $value, so expanding every template of every alert at every tick (12% of the
// built-in pack's tick) redid the same work. An expansion is reused while the alert's labels are
// the same and, if it read the value, the value is the same too.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "collector/normalize/series.h"
#include "rules/rule_file.h"
#include "rules/template.h"

namespace rdmatop {

class AlertTemplates {
 public:
  /// The rule's label templates (in `rule.labels` order), then its annotation templates (in
  /// `rule.annotations` order), expanded for one sample; an expansion error is put into the
  /// text, as Prometheus does. Valid until the next call.
  const std::vector<std::string>& expand(const Rule& rule, const Labels& sample_labels,
                                         double value, const TemplateExternals& externals);

  /// Forgets the alerts not expanded since the previous sweep (they left the rule's result),
  /// so the cache holds one rule evaluation's alerts.
  void sweep();

  std::size_t size() const { return instances_.size(); }

 private:
  struct Instance {
    Labels labels;
    std::vector<std::string> texts;
    std::vector<bool> read_value;  ///< per text: whether its expansion read `value`
    double value = 0;
    std::uint64_t used_in = 0;  ///< sweep period of the last expand()
  };

  /// Keyed by promql::hash_labels of the sample labels; labels compared exactly on a hit.
  std::unordered_multimap<std::uint64_t, Instance> instances_;
  std::uint64_t period_ = 0;
};

}  // namespace rdmatop
