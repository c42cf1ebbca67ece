#include "collector/normalize/series.h"

#include <algorithm>

namespace rdmatop {

void add_series(std::vector<Series>& out, std::string_view name, Labels labels, SeriesKind kind,
                double value, std::string origin) {
  std::sort(labels.begin(), labels.end());
  out.push_back(Series{std::string(name), std::move(labels), kind, value, 0, 0, std::move(origin)});
}

const std::string& label_value(const Labels& labels, std::string_view name) {
  static const std::string empty;
  if (name.empty()) return empty;  // no label has an empty name (labels.h)
  // The size and first letter tell most names apart without calling memcmp: this runs for
  // several labels of every series of every tick (build_tick, port_view.cpp).
  for (const auto& [key, value] : labels) {
    if (key.size() == name.size() && key.front() == name.front() && key == name) return value;
  }
  return empty;
}

std::string series_key(const std::string& name, const Labels& labels) {
  // Sized first: the key is built for every series at least twice per tick (normalize's sort,
  // the History's arrival key), and growing it piece by piece reallocated it several times
  // (1,500 instructions per key on the 16-port host, issue 18).
  std::size_t size = name.size() + 2;                                                 // "{" and "}"
  for (const auto& [label, value] : labels) size += label.size() + value.size() + 4;  // =\"\",
  std::string key;
  key.reserve(size);
  key += name;
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
