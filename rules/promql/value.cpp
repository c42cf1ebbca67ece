#include "rules/promql/value.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <functional>

namespace rdmatop::promql {

namespace {

/// A label value as PromQL and the exposition format quote it: backslash, quote and newline
/// escaped.
void append_escaped(std::string& out, const std::string& value) {
  for (char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
}

constexpr std::uint64_t kStaleNanBits = 0x7ff0000000000002ULL;
}  // namespace

double stale_nan() {
  return std::bit_cast<double>(kStaleNanBits);
}

bool is_stale_nan(double v) {
  return std::bit_cast<std::uint64_t>(v) == kStaleNanBits;
}

const char* to_string(ValueType type) {
  switch (type) {
    case ValueType::scalar:
      return "scalar";
    case ValueType::vector:
      return "instant vector";
    case ValueType::matrix:
      return "range vector";
    case ValueType::string:
      return "string";
  }
  return "?";
}

void set_label(Labels& labels, const std::string& name, const std::string& value) {
  auto it =
      std::lower_bound(labels.begin(), labels.end(), name,
                       [](const auto& pair, const std::string& key) { return pair.first < key; });
  // Prometheus treats an empty label value as an absent label.
  if (it != labels.end() && it->first == name) {
    if (value.empty()) {
      labels.erase(it);
    } else {
      it->second = value;
    }
  } else if (!value.empty()) {
    labels.insert(it, {name, value});
  }
}

void delete_label(Labels& labels, const std::string& name) {
  std::erase_if(labels, [&](const auto& pair) { return pair.first == name; });
}

std::uint64_t hash_label(std::uint64_t h, std::string_view name, std::string_view value) {
  h = hash_combine(h, std::hash<std::string_view>{}(name));
  return hash_combine(h, std::hash<std::string_view>{}(value));
}

std::uint64_t hash_labels(const Labels& labels) {
  std::uint64_t h = 0;
  for (const auto& [name, value] : labels) h = hash_label(h, name, value);
  return h;
}

Labels without_metric_name(const Labels& labels) {
  // Copies every label but the name, rather than copying the name and erasing it: the
  // in-place rate calls this once per series per evaluation.
  constexpr std::string_view metric_name = kMetricNameLabel;
  Labels out;
  out.reserve(labels.size());
  for (const auto& kv : labels) {
    if (kv.first != metric_name) out.push_back(kv);
  }
  return out;
}

std::string format_labels(const Labels& labels) {
  std::string out;
  const std::string& name = label_value(labels, kMetricNameLabel);
  out += name;
  out += '{';
  bool first = true;
  for (const auto& [key, value] : labels) {
    if (key == kMetricNameLabel) continue;
    if (!first) out += ", ";
    first = false;
    out += key;
    out += "=\"";
    append_escaped(out, value);
    out += '"';
  }
  out += '}';
  return out;
}

Labels series_labels(const Series& series) {
  Labels labels = series.labels;
  std::sort(labels.begin(), labels.end());
  set_label(labels, kMetricNameLabel, series.name);
  return labels;
}

std::string format_float(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  // Shortest digits first, then Go's %v layout: exponent form when exp < -4 || exp >= 21.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  auto epos = sci.find('e');
  std::string mantissa = sci.substr(0, epos);
  int exp = std::atoi(sci.c_str() + epos + 1);
  bool negative = mantissa[0] == '-';
  if (negative) mantissa.erase(0, 1);
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits += c;
  }
  std::string out = negative ? "-" : "";
  if (exp < -4 || exp >= 21) {
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    out += 'e';
    out += exp < 0 ? '-' : '+';
    int mag = std::abs(exp);
    if (mag < 10) out += '0';
    out += std::to_string(mag);
    return out;
  }
  if (exp < 0) {
    out += "0." + std::string(static_cast<std::size_t>(-exp - 1), '0') + digits;
  } else if (static_cast<std::size_t>(exp) + 1 >= digits.size()) {
    out += digits + std::string(static_cast<std::size_t>(exp) + 1 - digits.size(), '0');
  } else {
    out += digits.substr(0, static_cast<std::size_t>(exp) + 1) + "." +
           digits.substr(static_cast<std::size_t>(exp) + 1);
  }
  return out;
}

std::string format_float_exp(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  const auto epos = sci.find('e');
  const int exp = std::atoi(sci.c_str() + epos + 1);
  std::string out = sci.substr(0, epos) + "E" + (exp < 0 ? "-" : "+");
  const int mag = std::abs(exp);
  if (mag < 10) out += '0';
  return out + std::to_string(mag);
}

std::string format_labels_plain(const Labels& labels) {
  std::string out = "{";
  bool first = true;
  for (const auto& [key, value] : labels) {
    if (!first) out += ", ";
    first = false;
    out += key + "=\"";
    append_escaped(out, value);
    out += '"';
  }
  return out + "}";
}

}  // namespace rdmatop::promql
