#include "rules/engine.h"

#include <algorithm>
#include <set>

#include "rules/alert_templates.h"
#include "rules/evidence_index.h"
#include "rules/promql/evaluator.h"
#include "rules/template.h"

namespace rdmatop {

using promql::Timestamp;

namespace {

// Prometheus keeps a resolved alert this long so Alertmanager learns it resolved
// (rules/alerting.go `resolvedRetention`).
constexpr Timestamp kResolvedRetentionMs = 15 * 60 * 1000;

void collect_selectors(const promql::Expr& e, std::vector<const promql::Expr*>& out) {
  if (e.kind == promql::ExprKind::vector_selector || e.kind == promql::ExprKind::matrix_selector) {
    out.push_back(&e);
  }
  for (const auto& a : e.args) collect_selectors(*a, out);
}

/// The longest range over which `expr` reads a series with these labels (0: only instantly).
Timestamp range_of(const promql::Expr& expr, const Labels& labels) {
  std::vector<const promql::Expr*> selectors;
  collect_selectors(expr, selectors);
  Timestamp range = 0;
  for (const promql::Expr* sel : selectors) {
    if (sel->kind == promql::ExprKind::matrix_selector &&
        promql::matches_all(labels, sel->matchers))
      range = std::max(range, sel->range_ms);
  }
  return range;
}

/// What a range input really did over the rule's window (Evidence::observed_increase).
void add_observed_increase(const promql::Expr& expr, const History& history, Timestamp ts,
                           Evidence& e) {
  const Timestamp range = range_of(expr, e.labels);
  if (range == 0) return;
  const promql::StoredSeries* s = history.find(e.labels);
  if (s == nullptr) return;
  double increase = 0;
  std::optional<promql::Point> first;
  std::optional<promql::Point> last;
  // Only the window's points: the cost does not grow with the History's retention.
  const promql::StoredWindow window = s->window(ts - range, ts);
  for (auto it = window.begin; it != window.end; ++it) {
    const promql::Point& p = *it;
    if (promql::is_stale_nan(p.v)) continue;
    if (last) increase += p.v >= last->v ? p.v - last->v : p.v;
    if (!first) first = p;
    last = p;
  }
  if (first && last && last->t > first->t) {
    e.observed_increase = increase;
    e.observed_span_ms = last->t - first->t;
  }
}

}  // namespace

const char* to_string(Severity s) {
  switch (s) {
    case Severity::none:
      return "none";
    case Severity::info:
      return "info";
    case Severity::warning:
      return "warning";
    case Severity::critical:
      return "critical";
  }
  return "none";
}

const char* to_string(FindingState s) {
  switch (s) {
    case FindingState::pending:
      return "pending";
    case FindingState::firing:
      return "firing";
    case FindingState::resolved:
      return "resolved";
  }
  return "pending";
}

Severity parse_severity(const std::string& s) {
  if (s == "info") return Severity::info;
  if (s == "warning") return Severity::warning;
  if (s == "critical") return Severity::critical;
  return Severity::none;
}

RuleEngine::RuleEngine(std::vector<RuleGroup> groups, EngineOptions options)
    : groups_(std::move(groups)), options_(options) {}

Timestamp RuleEngine::required_retention_ms() const {
  Timestamp longest = promql::kLookbackDeltaMs;
  for (const auto& g : groups_) {
    for (const auto& r : g.rules) longest = std::max(longest, promql::max_lookback_ms(*r.expr));
  }
  return longest + options_.default_interval_ms;
}

std::vector<RuleEvalError> RuleEngine::evaluate(History& history, Timestamp ts) {
  std::vector<RuleEvalError> errors;
  for (const auto& group : groups_) {
    const Timestamp interval =
        group.interval_ms > 0 ? group.interval_ms : options_.default_interval_ms;
    const std::string gkey = group.file + "\n" + group.name;
    if (options_.respect_group_intervals) {
      auto it = last_group_eval_.find(gkey);
      if (it != last_group_eval_.end() && ts - it->second < interval) continue;
    }
    last_group_eval_[gkey] = ts;
    promql::EvalOptions eval_options;
    eval_options.default_step_ms = interval;
    eval_options.max_samples = options_.max_samples;
    for (const auto& rule : group.rules) {
      const std::string rule_key = gkey + "\n" + rule.name;
      if (const auto off = disabled_.find(rule_key); off != disabled_.end()) {
        errors.push_back(RuleEvalError{group.name, rule.name, off->second});
        continue;
      }
      auto value = promql::evaluate(*rule.expr, history, ts, eval_options);
      promql::Vector result;
      if (!value) {
        // Like Prometheus: a failed evaluation leaves the rule's state untouched. A rule that
        // exceeded the sample budget would exceed it again (History only grows up to its
        // retention), so it is disabled for the rest of the run, and says so at every tick.
        std::string message = value.error().message;
        if (value.error().code == promql::kSampleBudgetExceeded) {
          message = "rule disabled: " + message;
          disabled_.emplace(rule_key, message);
        }
        errors.push_back(RuleEvalError{group.name, rule.name, std::move(message)});
        continue;
      }
      if (value->type == promql::ValueType::scalar) {
        result.push_back(promql::Sample{Labels{}, value->scalar});
      } else {
        result = std::move(value).value().vector;
      }
      if (rule.is_alert) {
        eval_alert(group, rule, result, history, ts, errors);
        continue;
      }
      // Recording rule: name the samples, add the rule's labels, store them.
      std::set<std::string> seen;
      bool duplicate = false;
      for (auto& s : result) {
        promql::set_label(s.labels, promql::kMetricNameLabel, rule.name);
        for (const auto& [k, v] : rule.labels) promql::set_label(s.labels, k, v);
        duplicate = duplicate || !seen.insert(series_key("", s.labels)).second;
      }
      if (duplicate) {
        errors.push_back(RuleEvalError{group.name, rule.name,
                                       "vector contains metrics with the same labelset after "
                                       "applying rule labels"});
        result.clear();
      }
      // One source per rule, not per recorded name: a group may record one name from several
      // rules with different labels (Prometheus allows it), and each rule's samples must not
      // mark the other's stale.
      history.ingest(result, ts,
                     "record\n" + gkey + "\n" + rule.name + "\n" + std::to_string(rule.line));
    }
  }
  return errors;
}

void RuleEngine::eval_alert(const RuleGroup& group, const Rule& rule, const promql::Vector& result,
                            History& history, Timestamp ts, std::vector<RuleEvalError>& errors) {
  // Keyed by the rule's place, not only its name: Prometheus packs often define one alert name
  // twice with different severities (and expressions), each rule with its own alert states.
  const std::string rule_key =
      group.file + "\n" + group.name + "\n" + rule.name + "\n" + std::to_string(rule.line);
  auto& active = active_[rule_key];
  AlertTemplates& templates = templates_[rule_key];
  std::map<std::string, Finding> current;
  EvidenceIndex evidence(result.empty() ? std::vector<promql::Vector>{}
                                        : evidence_inputs(rule, history, ts));
  for (const auto& s : result) {
    Labels sample_labels = promql::without_metric_name(s.labels);
    const std::vector<std::string>& texts =
        templates.expand(rule, sample_labels, s.value, options_.externals);
    std::size_t text = 0;
    Labels labels = sample_labels;
    for (const auto& [k, v] : rule.labels) promql::set_label(labels, k, texts[text++]);
    promql::set_label(labels, "alertname", rule.name);
    Finding f;
    f.rule = rule.name;
    f.group = group.name;
    f.severity = parse_severity(label_value(labels, "severity"));
    f.labels = labels;
    f.state = FindingState::pending;
    f.active_since = ts;
    f.value = s.value;
    for (const auto& [k, v] : rule.annotations) f.annotations.emplace_back(k, texts[text++]);
    // The evidence is every input series whose labels agree with the alert's (on every label
    // both carry): the counters behind the finding.
    f.evidence = evidence.pick(sample_labels, options_.max_evidence);
    for (Evidence& e : f.evidence) add_observed_increase(*rule.expr, history, ts, e);
    const std::string key = series_key("", labels);
    if (!current.emplace(key, std::move(f)).second) {
      errors.push_back(RuleEvalError{group.name, rule.name,
                                     "vector contains metrics with the same labelset after "
                                     "applying alert labels"});
      return;
    }
  }
  templates.sweep();
  for (auto& [key, f] : current) {
    auto it = active.find(key);
    if (it != active.end() && it->second.finding.state != FindingState::resolved) {
      it->second.finding.value = f.value;
      it->second.finding.annotations = std::move(f.annotations);
      it->second.finding.evidence = std::move(f.evidence);
      continue;
    }
    active[key] = ActiveAlert{std::move(f), 0};
  }
  for (auto it = active.begin(); it != active.end();) {
    ActiveAlert& a = it->second;
    if (current.count(it->first) == 0) {
      bool keep_firing = false;
      if (a.finding.state == FindingState::firing && rule.keep_firing_for_ms > 0) {
        if (a.keep_firing_since == 0) a.keep_firing_since = ts;
        keep_firing = ts - a.keep_firing_since < rule.keep_firing_for_ms;
      }
      if (a.finding.state == FindingState::pending ||
          (a.finding.state == FindingState::resolved &&
           ts - a.finding.resolved_at > kResolvedRetentionMs)) {
        it = active.erase(it);
        continue;
      }
      if (a.finding.state != FindingState::resolved && !keep_firing) {
        a.finding.state = FindingState::resolved;
        a.finding.resolved_at = ts;
      }
      if (!keep_firing) {
        ++it;
        continue;
      }
    } else {
      a.keep_firing_since = 0;
    }
    if (a.finding.state == FindingState::pending && ts - a.finding.active_since >= rule.for_ms) {
      a.finding.state = FindingState::firing;
      a.finding.fired_at = ts;
    }
    ++it;
  }
  if (!options_.write_alert_series) return;
  // AlertingRule.Eval (v2.42.0): every pending or firing alert as ALERTS{alertstate} 1 and
  // ALERTS_FOR_STATE = ActiveAt in whole seconds; the group writes them at `ts`, so rules after
  // this one see them, and an alert gone from the result leaves a staleness marker.
  promql::Vector samples;
  for (const auto& [key, a] : active) {
    if (a.finding.state == FindingState::resolved) continue;
    Labels l = a.finding.labels;
    promql::set_label(l, promql::kMetricNameLabel, "ALERTS");
    promql::set_label(l, "alertstate",
                      a.finding.state == FindingState::firing ? "firing" : "pending");
    samples.push_back(promql::Sample{l, 1});
    Labels f = a.finding.labels;
    promql::set_label(f, promql::kMetricNameLabel, "ALERTS_FOR_STATE");
    samples.push_back(promql::Sample{f, static_cast<double>(a.finding.active_since / 1000)});
  }
  history.ingest(samples, ts,
                 "alerts\n" + group.file + "\n" + group.name + "\n" + rule.name + "\n" +
                     std::to_string(rule.line));
}

std::vector<promql::Vector> RuleEngine::evidence_inputs(const Rule& rule, const History& history,
                                                        Timestamp ts) const {
  // The expression's input series at their latest values, evaluated once per rule evaluation
  // (not once per alert: that would scan the whole History for every firing port).
  std::vector<const promql::Expr*> selectors;
  collect_selectors(*rule.expr, selectors);
  std::vector<promql::Vector> inputs;
  for (const promql::Expr* sel : selectors) {
    promql::Expr instant;
    instant.kind = promql::ExprKind::vector_selector;
    instant.matchers = sel->matchers;
    instant.offset_ms = sel->offset_ms;
    promql::EvalOptions opts;
    opts.lookback_ms = std::max(promql::kLookbackDeltaMs, sel->range_ms);
    auto v = promql::evaluate(instant, history, ts, opts);
    if (v) inputs.push_back(std::move(v).value().vector);
  }
  return inputs;
}

std::vector<const Finding*> RuleEngine::finding_refs() const {
  std::vector<const Finding*> out;
  for (const auto& [rule_key, alerts] : active_) {
    for (const auto& [key, a] : alerts) out.push_back(&a.finding);
  }
  std::sort(out.begin(), out.end(), [](const Finding* a, const Finding* b) {
    if (a->rule != b->rule) return a->rule < b->rule;
    return a->labels < b->labels;
  });
  return out;
}

std::vector<Finding> RuleEngine::findings() const {
  std::vector<Finding> out;
  for (const Finding* f : finding_refs()) out.push_back(*f);
  return out;
}

}  // namespace rdmatop
