#include "collector/normalize/series.h"

#include <algorithm>

namespace rdmatop {

void add_series(std::vector<Series>& out, std::string_view name, Labels labels, SeriesKind kind,
                double value, std::string origin) {
  std::sort(labels.begin(), labels.end());
  out.push_back(Series{std::string(name), std::move(labels), kind, value, 0, 0, std::move(origin)});
}

const std::string& label_value(const Labels& labels, const std::string& name) {
  static const std::string empty;
  for (const auto& [key, value] : labels) {
    if (key == name) return value;
  }
  return empty;
}

std::string series_key(const std::string& name, const Labels& labels) {
  std::string key = name;
  key += '{';
  bool first = true;
  for (const auto& [label, value] : labels) {
    if (!first) key += ',';
    first = false;
    key += label;
    key += "=\"";
    key += value;
    key += '"';
  }
  key += '}';
  return key;
}

}  // namespace rdmatop
