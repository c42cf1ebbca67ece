// Looks up one family of a prometheus-cpp collection by name, for the exporter's tests.
#pragma once

#include <string>
#include <vector>

#include <prometheus/metric_family.h>

namespace rdmatop::test {

/// The family called `name`, or nullptr.
inline const prometheus::MetricFamily* family(const std::vector<prometheus::MetricFamily>& families,
                                              const std::string& name) {
  for (const auto& f : families) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

}  // namespace rdmatop::test
