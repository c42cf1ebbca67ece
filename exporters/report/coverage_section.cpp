#include "exporters/report/coverage_section.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace rdmatop {

namespace {

using ojson = nlohmann::ordered_json;

std::string join(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : sep) + item;
  return out;
}

}  // namespace

std::string render_coverage_text(const PublishedTick& report) {
  std::size_t evaluable = 0;
  // Rules with the same missing inputs are listed together: "RdmaProbeLoss, RdmaProbeQpErrors".
  std::map<std::vector<std::string>, std::vector<std::string>> by_missing;
  std::map<std::vector<std::string>, std::vector<std::string>> metrics_of;
  for (const RuleCoverage& c : report.coverage) {
    if (c.evaluable) {
      ++evaluable;
      continue;
    }
    by_missing[c.missing].push_back(c.rule);
    metrics_of[c.missing] = c.missing_metrics;
  }
  std::string out =
      fmt::format("  {} of {} rules can evaluate on this host", evaluable, report.coverage.size());
  if (by_missing.empty()) return out + "\n";
  out += fmt::format("; {} cannot (silence from them is not health):\n",
                     report.coverage.size() - evaluable);
  for (const auto& [missing, rules] : by_missing) {
    out += fmt::format("    {}\n      missing {}\n", join(rules), join(missing, " and "));
    for (const std::string& metric : metrics_of[missing]) {
      out += fmt::format("      {}: {}\n", metric, explain_missing_metric(metric, report.snapshot));
    }
  }
  return out;
}

ojson render_coverage_json(const PublishedTick& report) {
  ojson out = ojson::array();
  for (const RuleCoverage& c : report.coverage) {
    ojson why = ojson::object();
    for (const std::string& metric : c.missing_metrics) {
      why[metric] = explain_missing_metric(metric, report.snapshot);
    }
    out.push_back(ojson{{"rule", c.rule},
                        {"group", c.group},
                        {"lifetime", c.lifetime},
                        {"evaluable", c.evaluable},
                        {"missing", c.missing},
                        {"why", std::move(why)}});
  }
  return out;
}

}  // namespace rdmatop
