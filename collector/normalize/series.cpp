#include "collector/normalize/series.h"

namespace rdmatop {

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
