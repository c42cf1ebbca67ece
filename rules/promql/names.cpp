#include "rules/promql/names.h"

#include <cctype>

namespace rdmatop {

bool is_valid_metric_name(const std::string& s) {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    const bool ok = std::isalpha(c) != 0 || c == '_' || c == ':' || (i > 0 && std::isdigit(c) != 0);
    if (!ok || c >= 0x80) return false;
  }
  return true;
}

bool is_valid_label_name(const std::string& s) {
  return is_valid_metric_name(s) && s.find(':') == std::string::npos;
}

}  // namespace rdmatop
