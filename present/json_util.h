// JSON building blocks shared by the report and the recording formats.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "collector/model/snapshot.h"

namespace rdmatop {

/// An absent optional is JSON null.
template <class T>
nlohmann::ordered_json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

/// A counter map as a JSON object in name order. The map is already sorted and unique, so
/// entries are appended directly: ordered_json's operator[] searches linearly, which is
/// quadratic over an mlx5 netdev's ~1000 ethtool counters.
inline nlohmann::ordered_json counters_json(const CounterMap& counters) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  auto& entries = out.get_ref<nlohmann::ordered_json::object_t&>();
  entries.reserve(counters.size());
  for (const auto& [name, value] : counters) entries.emplace_back(name, value);
  return out;
}

}  // namespace rdmatop
