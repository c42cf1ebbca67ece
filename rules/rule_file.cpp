#include "rules/rule_file.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rules/promql/evaluator.h"
#include "rules/promql/lexer.h"
#include "rules/promql/names.h"
#include "rules/promql/parser.h"
#include "rules/template.h"

namespace rdmatop {

std::string to_string(const RuleFileError& e) {
  std::string out = e.file;
  if (e.line > 0) out += ":" + std::to_string(e.line) + ":" + std::to_string(e.column);
  return out + ": " + e.message;
}

namespace {

/// Byte offset of the outermost subquery whose own steps exceed the budget (where a reader
/// should look), else of the first subquery, else 0.
std::size_t first_subquery_offset(const promql::Expr& e, promql::Timestamp interval_ms) {
  const promql::Expr* first = nullptr;
  const promql::Expr* over = nullptr;
  std::vector<const promql::Expr*> todo{&e};
  while (!todo.empty() && over == nullptr) {
    const promql::Expr* x = todo.back();
    todo.pop_back();
    if (x->kind == promql::ExprKind::subquery) {
      if (first == nullptr) first = x;
      if (promql::subquery_steps(*x, interval_ms) >
          static_cast<double>(promql::kDefaultMaxSamples)) {
        over = x;
      }
    }
    for (auto it = x->args.rbegin(); it != x->args.rend(); ++it) todo.push_back(it->get());
  }
  if (over != nullptr) return over->pos;
  return first != nullptr ? first->pos : 0;
}

/// "86400000000" or, past 2^53 where doubles stop being exact, "about 7.5e+15".
std::string format_count(double n) {
  if (n < 9e15) return std::to_string(static_cast<std::uint64_t>(n));
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "about %.2g", n);
  return buffer;
}

// Where an expression's byte offset lands in the file. yaml-cpp marks the start of the scalar
// token: for a block scalar (`|`, `>`) the text starts on the next line at its indentation;
// for a quoted scalar one column after the quote.
std::pair<int, int> expr_file_position(const std::string& file_text, const YAML::Mark& mark,
                                       const std::string& expr, std::size_t offset) {
  const auto [eline, ecol] = promql::line_column(expr, offset);
  const auto at = static_cast<std::size_t>(mark.pos);
  const char first = at < file_text.size() ? file_text[at] : ' ';
  if (first == '|' || first == '>') {
    std::size_t line_start = file_text.find('\n', at);
    // Skip blank lines before the first content line.
    while (line_start != std::string::npos && line_start + 1 < file_text.size() &&
           file_text[line_start + 1] == '\n') {
      line_start = file_text.find('\n', line_start + 1);
    }
    int indent = 0;
    if (line_start != std::string::npos) {
      for (std::size_t k = line_start + 1; k < file_text.size() && file_text[k] == ' '; ++k) {
        ++indent;
      }
    }
    return {mark.line + 1 + eline, indent + ecol};
  }
  const int quote = (first == '"' || first == '\'') ? 1 : 0;
  if (eline == 1) return {mark.line + 1, mark.column + 1 + quote + ecol - 1};
  return {mark.line + eline, ecol};
}

class Loader {
 public:
  Loader(const std::string& text, const std::string& file) : text_(text), file_(file) {}

  RuleFileLoad load() {
    YAML::Node root;
    try {
      root = YAML::Load(text_);
    } catch (const YAML::Exception& e) {
      error(e.mark, "YAML syntax error: " + e.msg);
      return std::move(out_);
    }
    if (!root || root.IsNull()) {
      // An empty file has no groups; promtool accepts it.
      return std::move(out_);
    }
    if (!root.IsMap()) {
      error(root.Mark(), "expected a mapping with a \"groups\" key");
      return std::move(out_);
    }
    for (const auto& kv : root) {
      const std::optional<std::string> parsed_key = key_of(kv.first);
      if (!parsed_key) continue;
      const std::string& key = *parsed_key;
      if (key != "groups")
        error(kv.first.Mark(), "field " + key + " not found in rule file; expected \"groups\"");
    }
    const YAML::Node groups = root["groups"];
    if (!groups) return std::move(out_);
    if (!groups.IsSequence()) {
      error(groups.Mark(), "\"groups\" must be a list of rule groups");
      return std::move(out_);
    }
    std::set<std::string> names;
    for (const auto& g : groups) {
      auto group = load_group(g);
      if (!group) continue;
      if (!names.insert(group->name).second) {
        error(g.Mark(), "groupname: \"" + group->name + "\" is repeated in the same file");
        continue;
      }
      out_.groups.push_back(std::move(*group));
    }
    return std::move(out_);
  }

 private:
  void error(const YAML::Mark& mark, std::string message) {
    const bool known = mark.line >= 0;
    out_.errors.push_back(RuleFileError{file_, known ? mark.line + 1 : 0,
                                        known ? mark.column + 1 : 0, std::move(message)});
  }

  /// A mapping key as a string; a key that is a sequence or a mapping (`[a]: []`) is an error,
  /// not an exception that would abort every command loading the file.
  std::optional<std::string> key_of(const YAML::Node& key) {
    if (!key.IsScalar()) {
      error(key.Mark(), "a key must be a string, not a list or a mapping");
      return std::nullopt;
    }
    return key.as<std::string>();
  }

  std::optional<std::string> scalar(const YAML::Node& n, const std::string& what) {
    if (!n.IsScalar()) {
      error(n.Mark(), what + ": expected a string");
      return std::nullopt;
    }
    return n.as<std::string>();
  }

  std::optional<promql::Timestamp> duration(const YAML::Node& n, const std::string& what) {
    auto s = scalar(n, what);
    if (!s) return std::nullopt;
    auto ms = promql::parse_duration(*s);
    if (!ms) {
      error(n.Mark(), what + ": " + ms.error().message + " (expected e.g. 30s, 5m, 1h30m)");
      return std::nullopt;
    }
    return *ms;
  }

  std::optional<RuleGroup> load_group(const YAML::Node& g) {
    if (!g.IsMap()) {
      error(g.Mark(), "a rule group must be a mapping with \"name\" and \"rules\"");
      return std::nullopt;
    }
    RuleGroup group;
    group.file = file_;
    bool ok = true;
    for (const auto& kv : g) {
      const std::optional<std::string> parsed_key = key_of(kv.first);
      if (!parsed_key) continue;
      const std::string& key = *parsed_key;
      if (key == "name") {
        auto s = scalar(kv.second, "name");
        if (s) group.name = *s;
        ok = ok && s.has_value();
      } else if (key == "interval") {
        auto d = duration(kv.second, "interval");
        if (d) group.interval_ms = *d;
        ok = ok && d.has_value();
      } else if (key == "limit") {
        // Accepted for compatibility; rdmatop does not cap alert counts.
      } else if (key != "rules") {
        error(kv.first.Mark(),
              "field " + key + " not found in rule group; expected name, interval, limit, rules");
        ok = false;
      }
    }
    if (group.name.empty()) {
      error(g.Mark(), "groupname must not be empty");
      return std::nullopt;
    }
    const YAML::Node rules = g["rules"];
    if (rules && !rules.IsNull()) {
      if (!rules.IsSequence()) {
        error(rules.Mark(), "\"rules\" must be a list");
        return std::nullopt;
      }
      for (const auto& r : rules) {
        auto rule =
            load_rule(r, group.interval_ms > 0 ? group.interval_ms : kDefaultGroupIntervalMs);
        if (rule) {
          group.rules.push_back(std::move(*rule));
        } else {
          ok = false;
        }
      }
    }
    if (!ok) return std::nullopt;
    return group;
  }

  std::optional<Rule> load_rule(const YAML::Node& r, promql::Timestamp interval_ms) {
    if (!r.IsMap()) {
      error(r.Mark(), "a rule must be a mapping with \"alert\" or \"record\" and \"expr\"");
      return std::nullopt;
    }
    Rule rule;
    rule.file = file_;
    rule.line = r.Mark().line + 1;
    bool ok = true;
    bool has_alert = false;
    bool has_record = false;
    // A default-constructed YAML::Node is a defined null node, so presence is tracked apart.
    std::optional<YAML::Node> expr_node;
    std::optional<YAML::Node> for_node;
    std::optional<YAML::Node> keep_node;
    bool has_annotations = false;
    for (const auto& kv : r) {
      const std::optional<std::string> parsed_key = key_of(kv.first);
      if (!parsed_key) continue;
      const std::string& key = *parsed_key;
      if (key == "alert" || key == "record") {
        auto s = scalar(kv.second, key);
        if (!s) {
          ok = false;
          continue;
        }
        rule.name = *s;
        (key == "alert" ? has_alert : has_record) = true;
      } else if (key == "expr") {
        expr_node = kv.second;
      } else if (key == "for") {
        for_node = kv.second;
      } else if (key == "keep_firing_for") {
        keep_node = kv.second;
      } else if (key == "labels") {
        ok = load_map(kv.second, "labels", rule.labels) && ok;
      } else if (key == "annotations") {
        has_annotations = true;
        ok = load_map(kv.second, "annotations", rule.annotations) && ok;
      } else {
        error(kv.first.Mark(), "field " + key +
                                   " not found in rule; expected alert or record, expr, for, "
                                   "keep_firing_for, labels, annotations");
        ok = false;
      }
    }
    rule.is_alert = has_alert;
    if (has_alert == has_record) {
      error(r.Mark(), has_alert ? "only one of 'record' and 'alert' must be set"
                                : "one of 'record' or 'alert' must be set");
      return std::nullopt;
    }
    if (has_record) {
      if (!is_valid_metric_name(rule.name)) {
        error(r.Mark(), "invalid recording rule name: " + rule.name);
        ok = false;
      }
      if (for_node || keep_node || has_annotations) {
        error(r.Mark(),
              "invalid field 'for', 'keep_firing_for' or 'annotations' in recording rule");
        ok = false;
      }
    } else if (rule.name.empty()) {
      error(r.Mark(), "alert name must not be empty");
      ok = false;
    }
    if (for_node) {
      auto d = duration(*for_node, "for");
      if (d) rule.for_ms = *d;
      ok = ok && d.has_value();
    }
    if (keep_node) {
      auto d = duration(*keep_node, "keep_firing_for");
      if (d) rule.keep_firing_for_ms = *d;
      ok = ok && d.has_value();
    }
    if (!expr_node) {
      error(r.Mark(), "field 'expr' must be set in rule");
      return std::nullopt;
    }
    auto expr = scalar(*expr_node, "expr");
    if (!expr) return std::nullopt;
    rule.expr_text = *expr;
    auto parsed = promql::parse_expr(rule.expr_text);
    if (!parsed) {
      auto [line, col] =
          expr_file_position(text_, expr_node->Mark(), rule.expr_text, parsed.error().offset);
      out_.errors.push_back(
          RuleFileError{file_, line, col, "could not parse expression: " + parsed.error().message});
      return std::nullopt;
    }
    // Subquery steps cost the evaluation's sample budget before any data is read, so a
    // subquery that cannot fit it ([1000d:1ms]) is refused now rather than disabled at its
    // first evaluation (the History would meanwhile keep 1000 days of samples for it).
    const double steps = promql::subquery_steps(*parsed.expr(), interval_ms);
    if (steps > static_cast<double>(promql::kDefaultMaxSamples)) {
      auto [line, col] = expr_file_position(text_, expr_node->Mark(), rule.expr_text,
                                            first_subquery_offset(*parsed.expr(), interval_ms));
      out_.errors.push_back(
          RuleFileError{file_, line, col,
                        "subqueries take " + format_count(steps) +
                            " evaluation steps, more than the sample "
                            "budget of " +
                            std::to_string(promql::kDefaultMaxSamples) +
                            " per evaluation; use a coarser step or a shorter range"});
      return std::nullopt;
    }
    rule.expr = std::shared_ptr<const promql::Expr>(std::move(parsed.expr()));
    if (!ok) return std::nullopt;
    return rule;
  }

  template <class Map>
  bool load_map(const YAML::Node& n, const std::string& what, Map& out) {
    if (n.IsNull()) return true;
    if (!n.IsMap()) {
      error(n.Mark(), what + ": expected a mapping of names to strings");
      return false;
    }
    bool ok = true;
    for (const auto& kv : n) {
      const std::optional<std::string> parsed_key = key_of(kv.first);
      if (!parsed_key) continue;
      const std::string& key = *parsed_key;
      if (!is_valid_label_name(key)) {
        error(kv.first.Mark(), what + ": invalid name \"" + key + "\"");
        ok = false;
        continue;
      }
      auto v = scalar(kv.second, what + "." + key);
      if (!v) {
        ok = false;
        continue;
      }
      auto checked = check_template(*v);
      if (!checked) {
        error(kv.second.Mark(), what + "." + key + ": " + checked.error().message);
        ok = false;
        continue;
      }
      out.emplace_back(key, *v);
    }
    std::sort(out.begin(), out.end());
    return ok;
  }

  const std::string& text_;
  std::string file_;
  RuleFileLoad out_;
};

}  // namespace

RuleFileLoad parse_rule_file(const std::string& text, const std::string& file_name) {
  Loader loader(text, file_name);
  return loader.load();
}

std::string to_yaml(const std::vector<RuleGroup>& groups) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "groups" << YAML::Value << YAML::BeginSeq;
  auto duration = [](promql::Timestamp ms) {
    // Prometheus duration text: largest units first.
    std::string s;
    static constexpr std::pair<const char*, promql::Timestamp> kUnits[] = {
        {"d", 86400000}, {"h", 3600000}, {"m", 60000}, {"s", 1000}, {"ms", 1}};
    for (const auto& [unit, size] : kUnits) {
      if (ms >= size) {
        s += std::to_string(ms / size) + unit;
        ms %= size;
      }
    }
    return s.empty() ? std::string("0s") : s;
  };
  for (const auto& g : groups) {
    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << g.name;
    if (g.interval_ms > 0) out << YAML::Key << "interval" << YAML::Value << duration(g.interval_ms);
    out << YAML::Key << "rules" << YAML::Value << YAML::BeginSeq;
    for (const auto& r : g.rules) {
      out << YAML::BeginMap;
      out << YAML::Key << (r.is_alert ? "alert" : "record") << YAML::Value << r.name;
      out << YAML::Key << "expr" << YAML::Value;
      if (r.expr_text.find('\n') != std::string::npos) out << YAML::Literal;
      out << r.expr_text;
      if (r.for_ms > 0) out << YAML::Key << "for" << YAML::Value << duration(r.for_ms);
      if (r.keep_firing_for_ms > 0) {
        out << YAML::Key << "keep_firing_for" << YAML::Value << duration(r.keep_firing_for_ms);
      }
      if (!r.labels.empty()) {
        out << YAML::Key << "labels" << YAML::Value << YAML::BeginMap;
        for (const auto& [k, v] : r.labels) out << YAML::Key << k << YAML::Value << v;
        out << YAML::EndMap;
      }
      if (!r.annotations.empty()) {
        out << YAML::Key << "annotations" << YAML::Value << YAML::BeginMap;
        for (const auto& [k, v] : r.annotations) {
          out << YAML::Key << k << YAML::Value;
          if (v.find('\n') != std::string::npos) out << YAML::Literal;
          out << v;
        }
        out << YAML::EndMap;
      }
      out << YAML::EndMap;
    }
    out << YAML::EndSeq << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace rdmatop
