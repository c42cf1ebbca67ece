// Regular expressions with Prometheus's syntax and anchoring: RE2 (the engine Go's regexp
// package mirrors; https://github.com/google/re2/wiki/Syntax), compiled as `^(?:pattern)$`
// exactly as Prometheus compiles label matchers (prometheus/model/labels/matcher.go,
// NewFastRegexMatcher) and label_replace (prometheus/promql/functions.go funcLabelReplace).
// The one wrapper every Prometheus-style match in rdmatop goes through: PromQL matchers,
// label_replace, and the exporter's raw-counter filter.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "collector/model/result.h"

namespace re2 {
class RE2;
}

namespace rdmatop {

class AnchoredRegex {
 public:
  /// Compiles `^(?:pattern)$`. The error message is RE2's, prefixed "error parsing regexp: ".
  static Result<AnchoredRegex> compile(const std::string& pattern);

  /// Whether the whole of `text` matches.
  bool matches(std::string_view text) const;

  /// Whole-text match filling `groups` with every capturing group (groups[0] is the whole
  /// match; a group that did not take part is empty). False when there is no match.
  bool match_groups(std::string_view text, std::vector<std::string>& groups) const;

  /// Go's Regexp.ExpandString: `$1`, `${1}`, `$name`, `${name}` name groups (the longest run of
  /// letters, digits and `_` after `$`), `$$` is a `$`; an unknown group expands to "".
  std::string expand(const std::string& templ, const std::vector<std::string>& groups) const;

  const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;
  std::shared_ptr<const re2::RE2> re_;
};

}  // namespace rdmatop
