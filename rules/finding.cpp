#include "rules/finding.h"

#include <string>
#include <string_view>

namespace rdmatop {

std::string annotation(const Finding& finding, const std::string& name) {
  for (const auto& [key, value] : finding.annotations) {
    if (key == name) return value;
  }
  return {};
}

std::string finding_place(const Finding& finding, const std::string& priority_word) {
  std::string place = label_value(finding.labels, "device");
  const std::string& port = label_value(finding.labels, "port");
  if (!port.empty()) place += "/" + port;
  const std::string& prio = label_value(finding.labels, "priority");
  if (!prio.empty()) place += " " + priority_word + " " + prio;
  return place.empty() ? "host" : place;
}

bool has_lifetime_evidence(const Labels& labels) {
  return label_value(labels, kEvidenceLabel) == std::string_view(kLifetimeEvidence);
}

bool is_lifetime(const Finding& finding) {
  return has_lifetime_evidence(finding.labels);
}

const char* state_name(const Finding& finding) {
  return is_lifetime(finding) ? kLifetimeEvidence : to_string(finding.state);
}

}  // namespace rdmatop
