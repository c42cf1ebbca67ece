#include "rules/evidence_index.h"

#include <algorithm>
#include <set>

namespace rdmatop {

namespace {

std::vector<std::string> present_names(const Labels& labels) {
  // An empty value is an absent label (Prometheus and label_value agree).
  std::vector<std::string> names;
  for (const auto& [k, v] : labels) {
    if (!v.empty()) names.push_back(k);
  }
  return names;
}

/// Length-prefixed so no value can forge a separator.
void append_key(std::string& key, const std::string& value) {
  key += std::to_string(value.size());
  key += ':';
  key += value;
}

}  // namespace

EvidenceIndex::EvidenceIndex(std::vector<promql::Vector> inputs) : inputs_(std::move(inputs)) {
  std::map<std::vector<std::string>, std::size_t> shape_of;
  for (const auto& input : inputs_) {
    for (const auto& s : input) {
      auto names = present_names(s.labels);
      auto [it, added] = shape_of.try_emplace(names, shapes_.size());
      if (added) shapes_.push_back(Shape{std::move(names), {}, {}});
      shapes_[it->second].members.push_back(samples_.size());
      samples_.push_back(&s);
    }
  }
}

std::vector<Evidence> EvidenceIndex::pick(const Labels& alert_labels, std::size_t max) {
  // Per shape, the members that agree: one hash lookup on the values of the names the alert
  // and the shape share. A sample disagrees only where it carries a different value.
  std::vector<const std::vector<std::size_t>*> matches;
  for (Shape& shape : shapes_) {
    std::vector<std::string> projected;
    std::string key;
    for (const auto& [k, v] : alert_labels) {
      if (std::binary_search(shape.names.begin(), shape.names.end(), k)) {
        projected.push_back(k);
        append_key(key, v);
      }
    }
    auto [table, built] = shape.by_projection.try_emplace(projected);
    if (built) {
      for (std::size_t pos : shape.members) {
        std::string member_key;
        for (const auto& name : projected)
          append_key(member_key, label_value(samples_[pos]->labels, name));
        table->second[member_key].push_back(pos);
      }
    }
    auto hit = table->second.find(key);
    if (hit != table->second.end()) matches.push_back(&hit->second);
  }
  // Merge the shapes' ascending member lists so the evidence keeps input order.
  std::vector<std::size_t> next(matches.size(), 0);
  std::vector<Evidence> out;
  std::set<std::string> seen;
  while (out.size() < max) {
    std::size_t best = matches.size();
    for (std::size_t m = 0; m < matches.size(); ++m) {
      if (next[m] < matches[m]->size() &&
          (best == matches.size() || (*matches[m])[next[m]] < (*matches[best])[next[best]])) {
        best = m;
      }
    }
    if (best == matches.size()) break;
    const promql::Sample& s = *samples_[(*matches[best])[next[best]++]];
    if (seen.insert(series_key("", s.labels)).second)
      out.push_back(Evidence{s.labels, s.value, std::nullopt, 0});
  }
  return out;
}

}  // namespace rdmatop
