#pragma once
// Valid Prometheus metric and label names, as the data model defines them
// (https://prometheus.io/docs/concepts/data_model/#metric-names-and-labels): the PromQL
// functions that create labels and the rule-file loader both check them.

#include <string>

namespace rdmatop {

/// [a-zA-Z_:][a-zA-Z0-9_:]*
bool is_valid_metric_name(const std::string& s);
/// [a-zA-Z_][a-zA-Z0-9_]*
bool is_valid_label_name(const std::string& s);

}  // namespace rdmatop
