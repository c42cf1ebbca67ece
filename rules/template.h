// The subset of Go text/template that Prometheus alert labels and annotations use:
// `{{ $labels.x }}`, `{{ $value }}`, `{{ .Labels.x }}`, `{{ .Value }}`, pipelines into
// humanize / humanize1024 / humanizePercentage / humanizeDuration / printf / toUpper / toLower,
// and `{{- ... -}}` whitespace trimming. Numbers print as Go's %v does.
#pragma once

#include <string>

#include "collector/model/result.h"
#include "collector/normalize/series.h"

namespace rdmatop {

/// What a template sees besides the alert's labels and value: Prometheus's `.ExternalLabels` /
/// `$externalLabels` and `.ExternalURL` / `$externalURL` (template.AlertTemplateData).
struct TemplateExternals {
  Labels labels;
  std::string url;
};

/// Expands `text` for one alert sample. Errors name the unsupported construct. `reads_value`,
/// when given, is set to whether the expansion read `$value` / `.Value`: if not, the same
/// labels give the same result for any value (AlertTemplates reuses it).
Result<std::string> expand_template(const std::string& text, const Labels& labels, double value,
                                    const TemplateExternals& externals = {},
                                    bool* reads_value = nullptr);

/// Checks a template at load time (expands it against an empty label set).
Result<bool> check_template(const std::string& text);

}  // namespace rdmatop
