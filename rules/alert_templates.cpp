#include "rules/alert_templates.h"

#include <bit>

#include "rules/promql/value.h"

namespace rdmatop {

namespace {

std::string expand_or_error(const std::string& text, const Labels& labels, double value,
                            const TemplateExternals& externals, bool& read_value) {
  auto r = expand_template(text, labels, value, externals, &read_value);
  // Prometheus puts the error into the text rather than dropping the alert.
  return r ? *r : "<error expanding template: " + r.error().message + ">";
}

}  // namespace

const std::vector<std::string>& AlertTemplates::expand(const Rule& rule,
                                                       const Labels& sample_labels, double value,
                                                       const TemplateExternals& externals) {
  const std::uint64_t h = promql::hash_labels(sample_labels);
  Instance* instance = nullptr;
  const auto [first, last] = instances_.equal_range(h);
  for (auto it = first; it != last && instance == nullptr; ++it) {
    if (it->second.labels == sample_labels) instance = &it->second;
  }
  const std::size_t count = rule.labels.size() + rule.annotations.size();
  const bool fresh = instance == nullptr;
  if (fresh) {
    instance = &instances_.emplace(h, Instance{sample_labels, {}, {}, value, 0})->second;
    instance->texts.resize(count);
    instance->read_value.resize(count);
  }
  // Bitwise: a NaN value is the same value again, and -0 is not 0 (humanize prints "-0").
  const bool same_value =
      std::bit_cast<std::uint64_t>(instance->value) == std::bit_cast<std::uint64_t>(value);
  std::size_t i = 0;
  const auto refresh = [&](const std::string& text) {
    if (fresh || (!same_value && instance->read_value[i])) {
      bool read_value = false;
      instance->texts[i] = expand_or_error(text, sample_labels, value, externals, read_value);
      instance->read_value[i] = read_value;
    }
    ++i;
  };
  for (const auto& [name, text] : rule.labels) refresh(text);
  for (const auto& [name, text] : rule.annotations) refresh(text);
  instance->value = value;
  instance->used_in = period_;
  return instance->texts;
}

void AlertTemplates::sweep() {
  std::erase_if(instances_, [this](const auto& kv) { return kv.second.used_in != period_; });
  ++period_;
}

}  // namespace rdmatop
