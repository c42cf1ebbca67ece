#include "rules/template.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <variant>
#include <vector>

#include "rules/promql/value.h"

namespace rdmatop {

namespace {

// A template value: Go's text/template sees either a string or a float64 here.
using TValue = std::variant<std::string, double>;

struct TemplateError {
  std::string message;
};

[[noreturn]] void fail(std::string message) {
  throw TemplateError{std::move(message)};
}

// snprintf into a string sized by a first call: "%f" of 1e308 is 316 characters, never cut
// (widths and precisions are bounded by go_printf).
template <class T>
std::string c_format(const char* fmt, T v) {
  const int n = std::snprintf(nullptr, 0, fmt, v);
  if (n <= 0) return {};
  std::string out(static_cast<std::size_t>(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), fmt, v);
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::string go_format(const char* fmt, double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return c_format(fmt, v);
}

std::string to_text(const TValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  return promql::format_float(std::get<double>(v));
}

double to_number(const TValue& v) {
  if (const auto* d = std::get_if<double>(&v)) return *d;
  const std::string& s = std::get<std::string>(v);
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  if (s.empty() || end == nullptr || *end != '\0') fail("cannot convert \"" + s + "\" to a number");
  return d;
}

// prometheus/template/template.go "humanize" and "humanize1024".
std::string humanize(double v, double base, bool binary) {
  if (v == 0 || std::isnan(v) || std::isinf(v)) return go_format("%.4g", v);
  static const char* kBig[] = {"k", "M", "G", "T", "P", "E", "Z", "Y"};
  static const char* kBigBinary[] = {"ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"};
  static const char* kSmall[] = {"m", "u", "n", "p", "f", "a", "z", "y"};
  std::string prefix;
  if (std::fabs(v) >= 1 || binary) {
    for (int i = 0; i < 8; ++i) {
      if (std::fabs(v) < base) break;
      prefix = binary ? kBigBinary[i] : kBig[i];
      v /= base;
    }
    return go_format("%.4g", v) + prefix;
  }
  for (const char* p : kSmall) {
    if (std::fabs(v) >= 1) break;
    prefix = p;
    v *= 1000;
  }
  return go_format("%.4g", v) + prefix;
}

std::string humanize_duration(double v) {
  if (std::isnan(v) || std::isinf(v)) return go_format("%.4g", v);
  if (v == 0) return go_format("%.4g", v) + "s";
  if (std::fabs(v) >= 1) {
    std::string sign;
    if (v < 0) {
      sign = "-";
      v = -v;
    }
    // Beyond 2^63 seconds the days do not fit an integer (Go's int64(v) is then undefined as
    // well, found by fuzz/template_fuzz.cpp with 8.3e87): the seconds are printed as a number.
    if (v >= 9.2e18) return sign + go_format("%.4g", v) + "s";
    const auto d = static_cast<long long>(v);
    const long long seconds = d % 60;
    const long long minutes = (d / 60) % 60;
    const long long hours = (d / 3600) % 24;
    const long long days = d / 86400;
    char buf[128];
    if (days != 0) {
      std::snprintf(buf, sizeof buf, "%s%lldd %lldh %lldm %llds", sign.c_str(), days, hours,
                    minutes, seconds);
    } else if (hours != 0) {
      std::snprintf(buf, sizeof buf, "%s%lldh %lldm %llds", sign.c_str(), hours, minutes, seconds);
    } else if (minutes != 0) {
      std::snprintf(buf, sizeof buf, "%s%lldm %llds", sign.c_str(), minutes, seconds);
    } else {
      return sign + go_format("%.4g", v) + "s";
    }
    return buf;
  }
  std::string prefix;
  for (const char* p : {"m", "u", "n", "p", "f", "a", "z", "y"}) {
    if (std::fabs(v) >= 1) break;
    prefix = p;
    v *= 1000;
  }
  return go_format("%.4g", v) + prefix + "s";
}

constexpr int kMaxPrintfWidth = 200;

// Go fmt's printf for the verbs templates use with numbers and strings.
std::string go_printf(const std::string& fmt, const std::vector<TValue>& args) {
  std::string out;
  std::size_t arg = 0;
  for (std::size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out += fmt[i];
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '%') {
      out += '%';
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    // strchr finds the terminator too: a NUL must not pass for a flag, or the spec handed to
    // snprintf ends early (found by fuzz/template_fuzz.cpp: "%.\0e" made an invalid format).
    while (j < fmt.size() && fmt[j] != '\0' && std::strchr("+-# 0123456789.", fmt[j]) != nullptr) {
      ++j;
    }
    if (j >= fmt.size()) fail("printf: incomplete format \"" + fmt + "\"");
    const std::string spec = fmt.substr(i, j - i);
    // glibc's printf allocates a precision's worth of digits up front ("%.1414273133e" asked
    // for 5.6 GB, found by fuzz/template_fuzz.cpp): a width or precision that no annotation
    // needs is refused.
    for (std::size_t d = 1; d < spec.size();) {
      std::size_t end = d;
      while (end < spec.size() && spec[end] >= '0' && spec[end] <= '9') ++end;
      if (end > d && (end - d > 3 || std::stoi(spec.substr(d, end - d)) > kMaxPrintfWidth)) {
        fail("printf: width or precision in \"" + spec + "\" above " +
             std::to_string(kMaxPrintfWidth));
      }
      d = end > d ? end : d + 1;
    }
    const char verb = fmt[j];
    i = j;
    if (arg >= args.size()) {
      out += std::string("%!") + verb + "(MISSING)";
      continue;
    }
    const TValue& a = args[arg++];
    switch (verb) {
      case 'v':
      case 's':
        if (std::holds_alternative<double>(a) && verb == 's') {
          out += "%!s(float64=" + to_text(a) + ")";
        } else {
          out += c_format((spec + "s").c_str(), to_text(a).c_str());
        }
        break;
      case 'f':
      case 'e':
      case 'g':
      case 'F':
      case 'E':
      case 'G':
        if (!std::holds_alternative<double>(a)) {
          out += std::string("%!") + verb + "(string=" + to_text(a) + ")";
        } else {
          out += go_format((spec + verb).c_str(), std::get<double>(a));
        }
        break;
      case 'd':
        out += "%!d(" + std::string(std::holds_alternative<double>(a) ? "float64" : "string") +
               "=" + to_text(a) + ")";
        break;
      default:
        fail(std::string("printf: unsupported verb %") + verb);
    }
  }
  return out;
}

class Expander {
 public:
  Expander(const Labels& labels, double value, const TemplateExternals& externals)
      : labels_(labels), value_(value), externals_(externals) {}

  /// Whether run() read the alert's value so far.
  bool read_value() const { return read_value_; }

  std::string run(const std::string& text) {
    std::string out;
    std::size_t i = 0;
    while (i < text.size()) {
      const std::size_t open = text.find("{{", i);
      if (open == std::string::npos) {
        out += text.substr(i);
        break;
      }
      out += text.substr(i, open - i);
      std::size_t start = open + 2;
      if (start + 1 < text.size() && text[start] == '-' && text[start + 1] == ' ') {
        while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back())) != 0) {
          out.pop_back();
        }
        ++start;
      }
      const std::size_t close = text.find("}}", start);
      if (close == std::string::npos) fail("unclosed action (missing \"}}\")");
      std::size_t end = close;
      bool trim_right = false;
      if (end >= 2 && text[end - 1] == '-' && text[end - 2] == ' ') {
        trim_right = true;
        --end;
      }
      out += action(text.substr(start, end - start));
      i = close + 2;
      if (trim_right) {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) != 0) ++i;
      }
    }
    return out;
  }

 private:
  std::vector<std::string> split_words(const std::string& s) {
    std::vector<std::string> words;
    std::size_t i = 0;
    while (i < s.size()) {
      if (std::isspace(static_cast<unsigned char>(s[i])) != 0) {
        ++i;
        continue;
      }
      if (s[i] == '|') {
        words.emplace_back("|");
        ++i;
        continue;
      }
      if (s[i] == '"' || s[i] == '`') {
        const char q = s[i];
        std::string word(1, '"');
        ++i;
        while (i < s.size() && s[i] != q) {
          if (s[i] == '\\' && q == '"' && i + 1 < s.size()) {
            const char e = s[++i];
            word += e == 'n' ? '\n' : (e == 't' ? '\t' : e);
          } else {
            word += s[i];
          }
          ++i;
        }
        if (i >= s.size()) fail("unterminated quoted string in template");
        ++i;
        words.push_back(word);
        continue;
      }
      std::size_t j = i;
      while (j < s.size() && std::isspace(static_cast<unsigned char>(s[j])) == 0 && s[j] != '|') {
        ++j;
      }
      words.push_back(s.substr(i, j - i));
      i = j;
    }
    return words;
  }

  TValue operand(const std::string& w) {
    if (!w.empty() && w[0] == '"') return w.substr(1);
    if (w == "$value" || w == ".Value") {
      read_value_ = true;
      return value_;
    }
    if (w == "$externalURL" || w == ".ExternalURL") return externals_.url;
    for (const char* prefix : {"$labels.", ".Labels.", "$externalLabels.", ".ExternalLabels."}) {
      const std::string p = prefix;
      if (w.rfind(p, 0) == 0) {
        const std::string name = w.substr(p.size());
        const Labels& from = p.find('x') != std::string::npos ? externals_.labels : labels_;
        for (const auto& [k, v] : from) {
          if (k == name) return v;
        }
        return std::string();  // Prometheus expands a missing label to "" (promtool-checked)
      }
    }
    if (!w.empty() && (std::isdigit(static_cast<unsigned char>(w[0])) != 0 || w[0] == '-')) {
      return to_number(std::string(w));
    }
    fail("unsupported template operand \"" + w + "\"");
  }

  TValue call(const std::string& fn, std::vector<TValue> args) {
    auto one = [&]() -> const TValue& {
      if (args.size() != 1) fail(fn + ": expected 1 argument, got " + std::to_string(args.size()));
      return args[0];
    };
    if (fn == "humanize") return humanize(to_number(one()), 1000, false);
    if (fn == "humanize1024") return humanize(to_number(one()), 1024, true);
    if (fn == "humanizePercentage") return go_format("%.4g", to_number(one()) * 100) + "%";
    if (fn == "humanizeDuration") return humanize_duration(to_number(one()));
    if (fn == "toUpper" || fn == "toLower") {
      std::string s = to_text(one());
      for (char& c : s) {
        c = static_cast<char>(fn == "toUpper" ? std::toupper(static_cast<unsigned char>(c))
                                              : std::tolower(static_cast<unsigned char>(c)));
      }
      return s;
    }
    if (fn == "printf") {
      if (args.empty() || !std::holds_alternative<std::string>(args[0])) {
        fail("printf: the first argument must be a format string");
      }
      const std::string format = std::get<std::string>(args[0]);
      args.erase(args.begin());
      return go_printf(format, args);
    }
    fail("function \"" + fn + "\" not defined");
  }

  std::string action(const std::string& body) {
    const std::vector<std::string> words = split_words(body);
    if (words.empty()) fail("missing value for command");
    if (words[0] == "if" || words[0] == "range" || words[0] == "end" || words[0] == "with" ||
        words[0] == "define" || words[0] == "template" || words[0].rfind("/*", 0) == 0) {
      fail("the \"" + words[0] + "\" action is not supported");
    }
    std::optional<TValue> piped;
    std::size_t i = 0;
    while (i < words.size()) {
      std::vector<std::string> cmd;
      while (i < words.size() && words[i] != "|") cmd.push_back(words[i++]);
      ++i;  // skip "|"
      if (cmd.empty()) fail("missing command in pipeline");
      const std::string& head = cmd[0];
      const bool is_function = std::isalpha(static_cast<unsigned char>(head[0])) != 0;
      if (!is_function) {
        if (cmd.size() != 1 || piped) fail("can't give argument to non-function " + head);
        piped = operand(head);
        continue;
      }
      std::vector<TValue> args;
      for (std::size_t k = 1; k < cmd.size(); ++k) args.push_back(operand(cmd[k]));
      if (piped) args.push_back(*piped);
      piped = call(head, std::move(args));
    }
    return to_text(*piped);
  }

  const Labels& labels_;
  double value_;
  const TemplateExternals& externals_;
  bool read_value_ = false;
};

}  // namespace

Result<std::string> expand_template(const std::string& text, const Labels& labels, double value,
                                    const TemplateExternals& externals, bool* reads_value) {
  Expander ex(labels, value, externals);
  Result<std::string> out = Error{0, ""};
  try {
    out = ex.run(text);
  } catch (const TemplateError& e) {
    out = Error{0, "template: " + e.message};
  }
  // An error met before any `$value` does not depend on the value either.
  if (reads_value != nullptr) *reads_value = ex.read_value();
  return out;
}

Result<bool> check_template(const std::string& text) {
  auto r = expand_template(text, Labels{}, 0);
  if (!r) return r.error();
  return true;
}

}  // namespace rdmatop
