#include "rules/rule_test.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include "rules/engine.h"
#include "rules/history.h"
#include "rules/promql/evaluator.h"
#include "rules/promql/lexer.h"
#include "rules/promql/parser.h"
#include "rules/rule_file.h"

namespace rdmatop {

using promql::Timestamp;

Result<std::vector<std::optional<double>>> expand_series_values(const std::string& text) {
  std::vector<std::optional<double>> out;
  std::istringstream in(text);
  std::string word;
  auto number = [](const std::string& s, double& v) {
    if (s.empty()) return false;
    char* end = nullptr;
    v = std::strtod(s.c_str(), &end);
    return end != nullptr && *end == '\0';
  };
  auto count = [](const std::string& s, long& n) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 9) {
      return false;
    }
    n = std::stol(s);
    return true;
  };
  while (in >> word) {
    if (word == "_") {
      out.emplace_back(std::nullopt);
      continue;
    }
    if (word == "stale") {
      out.emplace_back(promql::stale_nan());
      continue;
    }
    const auto x = word.find('x');
    if (x == std::string::npos) {
      double v = 0;
      if (!number(word, v)) return Error{0, "bad sample value \"" + word + "\""};
      out.emplace_back(v);
      continue;
    }
    long n = 0;
    if (!count(word.substr(x + 1), n)) return Error{0, "bad repetition count in \"" + word + "\""};
    const std::string head = word.substr(0, x);
    if (head == "_") {  // "_xN": N omitted samples
      out.insert(out.end(), static_cast<std::size_t>(n), std::nullopt);
      continue;
    }
    // "a+bxN" / "a-bxN": N+1 samples; "axN": N+1 copies of a.
    std::size_t op = std::string::npos;
    for (std::size_t k = 1; k < head.size(); ++k) {
      if ((head[k] == '+' || head[k] == '-') && head[k - 1] != 'e' && head[k - 1] != 'E') op = k;
    }
    double start = 0;
    double step = 0;
    if (op == std::string::npos) {
      if (!number(head, start)) return Error{0, "bad sample value \"" + word + "\""};
    } else {
      if (!number(head.substr(0, op), start) || !number(head.substr(op + 1), step)) {
        return Error{0, "bad expanding notation \"" + word + "\""};
      }
      if (head[op] == '-') step = -step;
    }
    double v = start;
    for (long k = 0; k <= n; ++k) {
      out.emplace_back(v);
      v += step;
    }
  }
  return out;
}

namespace {

struct AlertCase {
  Timestamp eval_time = 0;
  std::string alertname;
  std::vector<std::pair<Labels, Labels>> expected;  ///< labels, annotations
};

struct ExprCase {
  std::string expr;
  Timestamp eval_time = 0;
  std::vector<promql::Sample> expected;
};

using LabelsAndAnnotations = std::vector<std::pair<Labels, Labels>>;

std::string indent_lines(const std::string& text, const std::string& indent) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '\n') out += indent;
  }
  return out;
}

// promtool's labelsAndAnnotations.String().
std::string alerts_text(const LabelsAndAnnotations& la) {
  if (la.empty()) return "[]";
  std::string s = "[\n";
  for (std::size_t i = 0; i < la.size(); ++i) {
    if (i > 0) s += ",\n";
    s += std::to_string(i) + ":" +
         indent_lines("\nLabels:" + promql::format_labels_plain(la[i].first) +
                          "\nAnnotations:" + promql::format_labels_plain(la[i].second),
                      "  ");
  }
  return s + "\n]";
}

std::string samples_text(const std::vector<promql::Sample>& samples) {
  if (samples.empty()) return "nil";
  std::string s;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (i > 0) s += ", ";
    s += promql::format_labels_plain(samples[i].labels) + " " +
         promql::format_float_exp(samples[i].value);
  }
  return s;
}

Result<Timestamp> duration_field(const YAML::Node& n, const std::string& what) {
  if (!n.IsScalar()) return Error{0, what + ": expected a duration"};
  auto d = promql::parse_duration(n.as<std::string>());
  if (!d) return Error{0, what + ": " + d.error().message};
  return *d;
}

/// "line L, column C: " of a node, for messages ("" when yaml-cpp has no mark for it).
std::string position_of(const YAML::Node& n) {
  const YAML::Mark mark = n.Mark();
  if (mark.is_null()) return "";
  return "line " + std::to_string(mark.line + 1) + ", column " + std::to_string(mark.column + 1) +
         ": ";
}

/// A mapping of names to scalars; every key and value is checked to be a scalar before it is
/// converted (a list as a key, `[a]: b`, made yaml-cpp throw "bad conversion").
Result<Labels> map_to_labels(const YAML::Node& n, const std::string& what) {
  Labels out;
  if (!n || n.IsNull()) return out;
  if (!n.IsMap())
    return Error{0, position_of(n) + what + ": expected a mapping of names to strings"};
  for (const auto& kv : n) {
    if (!kv.first.IsScalar() || !kv.second.IsScalar()) {
      const YAML::Node& bad = kv.first.IsScalar() ? kv.second : kv.first;
      return Error{0, position_of(bad) + what + ": names and values must be strings"};
    }
    out.emplace_back(kv.first.Scalar(), kv.second.Scalar());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string join_path(const std::string& dir, const std::string& file) {
  if (dir.empty() || (!file.empty() && file[0] == '/')) return file;
  return dir + "/" + file;
}

class TestRun {
 public:
  TestRun(std::vector<RuleGroup> groups, Timestamp eval_interval)
      : groups_(std::move(groups)), eval_interval_(eval_interval) {}

  // Returns promtool-style error lines for one test group.
  std::vector<std::string> run(const YAML::Node& tg, Timestamp default_interval) {
    std::vector<std::string> errs;
    if (!tg.IsMap()) return {"    a test group must be a mapping"};
    for (const char* key : {"input_series", "alert_rule_test", "promql_expr_test"}) {
      const YAML::Node n = tg[key];
      if (n && !n.IsNull() && !n.IsSequence()) {
        return {std::string("    ") + key + ": expected a list"};
      }
    }
    std::string group_name;
    if (const YAML::Node name = tg["name"]; name) {
      if (!name.IsScalar()) return {"    " + position_of(name) + "name: expected a string"};
      group_name = name.Scalar();
    }
    Timestamp interval = default_interval;
    if (tg["interval"]) {
      auto d = duration_field(tg["interval"], "interval");
      if (!d) return {"    " + d.error().message};
      interval = *d;
    }
    History history(std::numeric_limits<Timestamp>::max() / 4);
    // promtool loads the input lazily: before the evaluation at ts, the samples up to ts
    // (promql.LazyLoader.WithSamplesTill); promql_expr_test queries run after the loop and see
    // the samples up to its last step, not beyond.
    std::vector<std::pair<Labels, std::vector<promql::Point>>> input;
    for (const auto& is : tg["input_series"]) {
      auto labels = promql::parse_series_labels(is["series"].as<std::string>(""));
      if (!labels) return {"    " + labels.error().message};
      auto values = expand_series_values(is["values"].as<std::string>(""));
      if (!values) return {"    " + values.error().message};
      std::vector<promql::Point> points;
      for (std::size_t k = 0; k < values->size(); ++k) {
        if ((*values)[k]) points.push_back({static_cast<Timestamp>(k) * interval, *(*values)[k]});
      }
      input.emplace_back(std::move(labels).value(), std::move(points));
    }
    std::vector<std::size_t> loaded(input.size(), 0);
    auto load_till = [&](Timestamp ts) {
      for (std::size_t s = 0; s < input.size(); ++s) {
        auto& [labels, points] = input[s];
        for (; loaded[s] < points.size() && points[loaded[s]].t <= ts; ++loaded[s]) {
          history.append(labels, points[loaded[s]].t, points[loaded[s]].v);
        }
      }
    };
    EngineOptions options;
    if (const YAML::Node ext = tg["external_labels"]; ext) {
      auto l = map_to_labels(ext, "external_labels");
      if (!l) return {"    " + l.error().message};
      options.externals.labels = std::move(l).value();
    }
    if (const YAML::Node url = tg["external_url"]; url) {
      if (!url.IsScalar()) return {"    " + position_of(url) + "external_url: expected a string"};
      options.externals.url = url.Scalar();
    }
    std::vector<AlertCase> alerts;
    std::vector<ExprCase> exprs;
    Timestamp maxt = 0;
    for (const auto& a : tg["alert_rule_test"]) {
      AlertCase c;
      auto t = duration_field(a["eval_time"], "eval_time");
      if (!t) return {"    " + t.error().message};
      c.eval_time = *t;
      c.alertname = a["alertname"].as<std::string>("");
      if (c.alertname.empty()) {
        return {"an item under alert_rule_test misses required attribute alertname at eval_time " +
                promql::format_duration(c.eval_time) +
                (group_name.empty() ? "" : " (in TestGroup " + group_name + ")")};
      }
      for (const auto& e : a["exp_alerts"]) {
        auto l = map_to_labels(e["exp_labels"], "exp_labels");
        if (!l) return {"    " + l.error().message};
        auto annotations = map_to_labels(e["exp_annotations"], "exp_annotations");
        if (!annotations) return {"    " + annotations.error().message};
        promql::set_label(l.value(), "alertname", c.alertname);
        c.expected.emplace_back(std::move(l).value(), std::move(annotations).value());
      }
      maxt = std::max(maxt, c.eval_time);
      alerts.push_back(std::move(c));
    }
    for (const auto& p : tg["promql_expr_test"]) {
      ExprCase c;
      c.expr = p["expr"].as<std::string>("");
      auto t = duration_field(p["eval_time"], "eval_time");
      if (!t) return {"    " + t.error().message};
      c.eval_time = *t;
      for (const auto& s : p["exp_samples"]) {
        auto l = promql::parse_series_labels(s["labels"].as<std::string>(""));
        if (!l) return {"    " + l.error().message};
        c.expected.push_back(promql::Sample{*l, s["value"].as<double>(0)});
      }
      maxt = std::max(maxt, c.eval_time);
      exprs.push_back(std::move(c));
    }
    std::stable_sort(alerts.begin(), alerts.end(), [](const AlertCase& a, const AlertCase& b) {
      return a.eval_time < b.eval_time;
    });

    options.default_interval_ms = eval_interval_;
    options.respect_group_intervals = false;
    options.write_alert_series = true;
    RuleEngine engine(groups_, options);
    std::size_t curr = 0;
    for (Timestamp ts = 0; ts <= maxt; ts += eval_interval_) {
      load_till(ts);
      auto eval_errors = engine.evaluate(history, ts);
      if (!eval_errors.empty()) {
        for (const auto& e : eval_errors) {
          errs.push_back("    rule: " + e.rule + ", time: " + promql::format_duration(ts) +
                         ", err: " + e.message);
        }
        return errs;
      }
      // promtool compares the alerts of the evaluation at ts for eval_time in
      // [ts, ts + evaluation_interval).
      while (curr < alerts.size() && ts <= alerts[curr].eval_time &&
             alerts[curr].eval_time < ts + eval_interval_) {
        check_alerts(alerts[curr], engine, group_name, errs);
        ++curr;
      }
    }
    for (const auto& c : exprs) check_expr(c, history, errs);
    return errs;
  }

 private:
  static void check_alerts(const AlertCase& c, const RuleEngine& engine,
                           const std::string& group_name, std::vector<std::string>& errs) {
    LabelsAndAnnotations got;
    for (const auto& f : engine.findings()) {
      if (f.rule != c.alertname || f.state != FindingState::firing) continue;
      Labels annotations(f.annotations.begin(), f.annotations.end());
      std::sort(annotations.begin(), annotations.end());
      got.emplace_back(f.labels, annotations);
    }
    LabelsAndAnnotations exp = c.expected;
    std::sort(got.begin(), got.end());
    std::sort(exp.begin(), exp.end());
    if (got == exp) return;
    std::string name = group_name.empty() ? "" : "    name: " + group_name + ",\n";
    errs.push_back(name + "    alertname: " + c.alertname +
                   ", time: " + promql::format_duration(c.eval_time) +
                   ", \n        exp:" + indent_lines(alerts_text(exp), "            ") +
                   ", \n        got:" + indent_lines(alerts_text(got), "            "));
  }

  void check_expr(const ExprCase& c, const History& history, std::vector<std::string>& errs) {
    std::string quoted = "\"";  // Go's %q
    for (char ch : c.expr) {
      if (ch == '"' || ch == '\\') quoted += '\\';
      if (ch == '\n') {
        quoted += "\\n";
        continue;
      }
      quoted += ch;
    }
    quoted += '"';
    auto parsed = promql::parse_expr(c.expr);
    if (!parsed) {
      auto [line, col] = promql::line_column(c.expr, parsed.error().offset);
      errs.push_back("    expr: " + quoted + ", time: " + promql::format_duration(c.eval_time) +
                     ", err: " + std::to_string(line) + ":" + std::to_string(col) +
                     ": parse error: " + parsed.error().message);
      return;
    }
    promql::EvalOptions options;
    options.default_step_ms = eval_interval_;
    auto value = promql::evaluate(*parsed.expr(), history, c.eval_time, options);
    if (!value) {
      errs.push_back("    expr: " + quoted + ", time: " + promql::format_duration(c.eval_time) +
                     ", err: " + value.error().message);
      return;
    }
    std::vector<promql::Sample> got;
    if (value->type == promql::ValueType::scalar) {
      got.push_back(promql::Sample{Labels{}, value->scalar});
    } else if (value->type == promql::ValueType::vector) {
      got = value->vector;
    } else {
      errs.push_back("    expr: " + quoted + ", time: " + promql::format_duration(c.eval_time) +
                     ", err: rule result is not a vector or scalar");
      return;
    }
    std::vector<promql::Sample> exp = c.expected;
    auto by_labels = [](const promql::Sample& a, const promql::Sample& b) {
      return a.labels < b.labels;
    };
    std::sort(got.begin(), got.end(), by_labels);
    std::sort(exp.begin(), exp.end(), by_labels);
    // Exact comparison, as promtool's reflect.DeepEqual (NaN never equals NaN).
    bool equal = got.size() == exp.size();
    for (std::size_t k = 0; equal && k < got.size(); ++k) {
      equal = got[k].labels == exp[k].labels && got[k].value == exp[k].value;
    }
    if (equal) return;
    errs.push_back("    expr: " + quoted + ", time: " + promql::format_duration(c.eval_time) +
                   ",\n        exp: " + samples_text(exp) + "\n        got: " + samples_text(got));
  }

  std::vector<RuleGroup> groups_;
  Timestamp eval_interval_;
};

}  // namespace

RuleTestOutcome run_rule_test_text(const std::string& text, const std::string& display_name,
                                   const std::string& dir, const FileReader& read) {
  RuleTestOutcome out;
  out.report = "Unit Testing:  " + display_name + "\n";
  auto failed = [&](const std::vector<std::string>& errs) {
    out.passed = false;
    out.report += "  FAILED:\n";
    for (const auto& e : errs) out.report += e + "\n";
    return out;
  };
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return failed({"    " + display_name + ":" + std::to_string(e.mark.line + 1) + ":" +
                   std::to_string(e.mark.column + 1) + ": " + e.msg});
  }
  if (!root.IsMap()) return failed({"    " + display_name + ": expected a mapping"});
  Timestamp eval_interval = 60 * 1000;
  if (root["evaluation_interval"]) {
    auto d = duration_field(root["evaluation_interval"], "evaluation_interval");
    if (!d) return failed({"    " + d.error().message});
    eval_interval = *d;
  }
  if (eval_interval <= 0) return failed({"    evaluation_interval must be positive"});
  std::vector<RuleGroup> groups;
  std::vector<std::string> load_errors;
  for (const auto& f : root["rule_files"]) {
    const std::string path = join_path(dir, f.as<std::string>(""));
    auto content = read(path);
    if (!content) {
      load_errors.push_back("    " + path + ": " + content.error().message);
      continue;
    }
    auto loaded = parse_rule_file(*content, path);
    for (const auto& e : loaded.errors) load_errors.push_back("    " + to_string(e));
    for (auto& g : loaded.groups) groups.push_back(std::move(g));
  }
  if (!load_errors.empty()) return failed(load_errors);
  std::vector<std::string> errs;
  try {
    for (const auto& tg : root["tests"]) {
      TestRun run(groups, eval_interval);
      auto e = run.run(tg, eval_interval);
      errs.insert(errs.end(), e.begin(), e.end());
    }
  } catch (const YAML::Exception& e) {
    errs.push_back("    " + display_name + ":" + std::to_string(e.mark.line + 1) + ":" +
                   std::to_string(e.mark.column + 1) + ": unexpected structure: " + e.msg);
  }
  if (!errs.empty()) return failed(errs);
  out.passed = true;
  out.report += "  SUCCESS\n";
  return out;
}

RuleTestOutcome run_rule_test_file(const std::string& path, const FileReader& read) {
  auto text = read(path);
  if (!text) {
    return RuleTestOutcome{
        false, "Unit Testing:  " + path + "\n  FAILED:\n    " + text.error().message + "\n"};
  }
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash);
  return run_rule_test_text(*text, path, dir, read);
}

}  // namespace rdmatop
