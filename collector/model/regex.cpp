#include "collector/model/regex.h"

#include <re2/re2.h>

#include <cctype>

namespace rdmatop {

Result<AnchoredRegex> AnchoredRegex::compile(const std::string& pattern) {
  RE2::Options options;
  options.set_log_errors(false);
  // Go's regexp: UTF-8, `.` does not match "\n", `$` only at the end of the text.
  auto re = std::make_shared<const re2::RE2>("^(?:" + pattern + ")$", options);
  if (!re->ok()) return Error{0, "error parsing regexp: " + re->error()};
  AnchoredRegex out;
  out.pattern_ = pattern;
  out.re_ = std::move(re);
  return out;
}

bool AnchoredRegex::matches(std::string_view text) const {
  return re_ != nullptr && RE2::FullMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

bool AnchoredRegex::match_groups(std::string_view text, std::vector<std::string>& groups) const {
  groups.clear();
  if (re_ == nullptr) return false;
  const int n = re_->NumberOfCapturingGroups() + 1;
  std::vector<re2::StringPiece> pieces(static_cast<std::size_t>(n));
  if (!re_->Match(re2::StringPiece(text.data(), text.size()), 0, text.size(), RE2::ANCHOR_BOTH,
                  pieces.data(), n)) {
    return false;
  }
  for (const auto& p : pieces) groups.emplace_back(p.data() == nullptr ? "" : std::string(p));
  return true;
}

std::string AnchoredRegex::expand(const std::string& templ,
                                  const std::vector<std::string>& groups) const {
  auto group = [&](const std::string& name) -> std::string {
    bool numeric = !name.empty();
    for (char c : name) numeric = numeric && std::isdigit(static_cast<unsigned char>(c)) != 0;
    if (numeric) {
      if (name.size() > 9) return "";
      const auto k = std::stoul(name);
      return k < groups.size() ? groups[k] : "";
    }
    if (re_ == nullptr) return "";
    const auto& named = re_->NamedCapturingGroups();
    const auto it = named.find(name);
    if (it == named.end() || static_cast<std::size_t>(it->second) >= groups.size()) return "";
    return groups[static_cast<std::size_t>(it->second)];
  };
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; };
  std::string out;
  for (std::size_t i = 0; i < templ.size(); ++i) {
    if (templ[i] != '$' || i + 1 >= templ.size()) {
      out += templ[i];
      continue;
    }
    // regexp.go extract(): "$$", "${name}" or "$name"; anything else is copied as is.
    if (templ[i + 1] == '$') {
      out += '$';
      ++i;
      continue;
    }
    if (templ[i + 1] == '{') {
      const auto close = templ.find('}', i + 2);
      std::size_t k = i + 2;
      while (k < templ.size() && word(templ[k])) ++k;
      if (close == std::string::npos || k != close || close == i + 2) {
        out += templ[i];
        continue;
      }
      out += group(templ.substr(i + 2, close - i - 2));
      i = close;
      continue;
    }
    std::size_t k = i + 1;
    while (k < templ.size() && word(templ[k])) ++k;
    if (k == i + 1) {
      out += templ[i];
      continue;
    }
    out += group(templ.substr(i + 1, k - i - 1));
    i = k - 1;
  }
  return out;
}

}  // namespace rdmatop
