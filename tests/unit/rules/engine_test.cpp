// The alert state machine (pending -> firing -> resolved, for, keep_firing_for), recording
// rules and evidence, driven through History as the host pipeline drives it; plus the
// promtool-format runner's own parsing and the built-in pack's invariants.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "rules/builtin_pack.h"
#include "rules/engine.h"
#include "rules/rule_test.h"

using namespace rdmatop;

namespace {

RuleEngine engine_for(const std::string& text) {
  auto load = parse_rule_file(text, "t.yaml");
  REQUIRE(load.errors.empty());
  EngineOptions o;
  o.default_interval_ms = 15000;
  return RuleEngine(load.groups, o);
}

Series counter(const char* device, double v) {
  return Series{"rdma_link_down_events_total",
                {{"device", device}, {"port", "1"}},
                SeriesKind::counter,
                v,
                0,
                0,
                ""};
}

}  // namespace

TEST_CASE("alerts go pending, firing, resolved with for and keep_firing_for", "[rules][engine]") {
  auto engine = engine_for(R"(groups:
  - name: g
    rules:
      - alert: Flap
        expr: increase(rdma_link_down_events_total[1m]) > 0
        for: 30s
        keep_firing_for: 30s
        labels: {severity: critical}
        annotations: {summary: '{{ $labels.device }} flapped'}
)");
  History h;
  auto tick = [&](promql::Timestamp t, double v0, double v1) {
    h.ingest({counter("d0", v0), counter("d1", v1)}, t);
    CHECK(engine.evaluate(h, t).empty());
    return engine.findings();
  };
  CHECK(tick(0, 0, 0).empty());
  auto f = tick(15000, 1, 0);  // d0 flapped: pending
  REQUIRE(f.size() == 1);
  CHECK(f[0].state == FindingState::pending);
  CHECK(f[0].active_since == 15000);
  CHECK(f[0].severity == Severity::critical);
  CHECK(label_value(f[0].labels, "device") == "d0");
  CHECK(label_value(f[0].labels, "alertname") == "Flap");
  CHECK(f[0].annotations[0].second == "d0 flapped");
  // Evidence: the input counter of d0 (not d1), with its value.
  REQUIRE(f[0].evidence.size() == 1);
  CHECK(label_value(f[0].evidence[0].labels, "device") == "d0");
  CHECK(f[0].evidence[0].value == 1);
  CHECK(tick(30000, 1, 0)[0].state == FindingState::pending);
  f = tick(45000, 1, 0);  // 30s after it became active
  CHECK(f[0].state == FindingState::firing);
  CHECK(f[0].fired_at == 45000);
  // The increase leaves the 1m window at 75s+; keep_firing_for holds it 30s longer.
  f = tick(90000, 1, 0);
  CHECK(f[0].state == FindingState::firing);
  f = tick(105000, 1, 0);
  CHECK(f[0].state == FindingState::firing);
  f = tick(120000, 1, 0);
  CHECK(f[0].state == FindingState::resolved);
  CHECK(f[0].resolved_at == 120000);
  // Resolved alerts are forgotten after 15 minutes.
  CHECK(tick(120000 + 16 * 60000, 1, 0).empty());
}

TEST_CASE("a pending alert that stops matching is dropped, not resolved", "[rules][engine]") {
  auto engine = engine_for(R"(groups:
  - name: g
    rules:
      - alert: High
        expr: rdma_port_state != 4
        for: 1m
)");
  History h;
  Series s{"rdma_port_state", {{"device", "d0"}}, SeriesKind::gauge, 1, 0, 0, ""};
  h.ingest({s}, 0);
  engine.evaluate(h, 0);
  REQUIRE(engine.findings().size() == 1);
  s.value = 4;
  h.ingest({s}, 15000);
  engine.evaluate(h, 15000);
  CHECK(engine.findings().empty());
}

TEST_CASE("recording rules feed later rules; errors do not stop the others", "[rules][engine]") {
  auto engine = engine_for(R"(groups:
  - name: g
    rules:
      - record: port:flaps:sum
        expr: sum by (port) (rdma_link_down_events_total)
      - alert: Broken
        expr: rdma_link_down_events_total + on(port) rdma_link_down_events_total
      - alert: FromRecord
        expr: port:flaps:sum > 2
)");
  History h;
  h.ingest({counter("d0", 1), counter("d1", 2)}, 0);
  auto errors = engine.evaluate(h, 0);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].rule == "Broken");
  auto f = engine.findings();
  REQUIRE(f.size() == 1);
  CHECK(f[0].rule == "FromRecord");
  CHECK(f[0].value == 3);
  CHECK(engine.required_retention_ms() >= promql::kLookbackDeltaMs);
}

TEST_CASE("promtool series notation expands", "[rules][rule_test]") {
  struct Case {
    const char* in;
    std::vector<std::optional<double>> out;
  };
  const std::optional<double> none;
  const Case cases[] = {
      {"1 2 3", {1, 2, 3}},
      {"0+10x3", {0, 10, 20, 30}},
      {"10-1x2", {10, 9, 8}},
      {"1x2", {1, 1, 1}},
      {"_ 1 _x2", {none, 1, none, none}},
      {"-1+1x1", {-1, 0}},
      {"1e3 2.5e-1+0x1", {1000, 0.25, 0.25}},
      {"", {}},
  };
  for (const auto& c : cases) {
    INFO(c.in);
    auto r = expand_series_values(c.in);
    REQUIRE(r.ok());
    CHECK(*r == c.out);
  }
  auto stale = expand_series_values("1 stale");
  REQUIRE(stale.ok());
  CHECK(promql::is_stale_nan(*(*stale)[1]));
  for (const char* bad : {"abc", "1+x3", "1x", "1+2xq", "1x-3"}) {
    INFO(bad);
    CHECK_FALSE(expand_series_values(bad).ok());
  }
}

TEST_CASE("rule test runner reports pass and promtool-style failures", "[rules][rule_test]") {
  const std::map<std::string, std::string> files = {
      {"d/r.yaml", "groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: x > 1\n"},
  };
  FileReader read = [&](const std::string& p) -> Result<std::string> {
    auto it = files.find(p);
    if (it == files.end()) return Error{2, p + ": not found"};
    return it->second;
  };
  const std::string pass = R"(rule_files: [r.yaml]
tests:
  - input_series:
      - series: 'x{i="1"}'
        values: '0 5'
    alert_rule_test:
      - eval_time: 1m
        alertname: A
        exp_alerts:
          - exp_labels: {i: "1"}
    promql_expr_test:
      - expr: x * 2
        eval_time: 1m
        exp_samples:
          - labels: '{i="1"}'
            value: 10
)";
  auto ok = run_rule_test_text(pass, "t.yaml", "d", read);
  CHECK(ok.passed);
  CHECK(ok.report == "Unit Testing:  t.yaml\n  SUCCESS\n");
  std::string fail = pass;
  fail.replace(fail.find("value: 10"), 9, "value: 11");
  auto bad = run_rule_test_text(fail, "t.yaml", "d", read);
  CHECK_FALSE(bad.passed);
  CHECK_THAT(bad.report, Catch::Contains("  FAILED:\n    expr: \"x * 2\", time: 1m,\n"
                                         "        exp: {i=\"1\"} 1.1E+01\n"
                                         "        got: {i=\"1\"} 1E+01"));
  auto missing = run_rule_test_text("rule_files: [nope.yaml]\ntests: []\n", "t.yaml", "d", read);
  CHECK_FALSE(missing.passed);
  CHECK_THAT(missing.report, Catch::Contains("d/nope.yaml: not found"));
  CHECK_FALSE(run_rule_test_text("tests: [", "t.yaml", "d", read).passed);
  CHECK_FALSE(run_rule_test_text("tests: [{input_series: 3}]", "t.yaml", "d", read).passed);

  // Lists where scalars belong are located errors, not yaml-cpp's bare "bad conversion"
  // (#22 item 3: every node's type is checked before it is converted).
  std::string list_key = pass;
  list_key.replace(list_key.find("{i: \"1\"}"), 8, "{[i]: \"1\"}");
  const auto keyed = run_rule_test_text(list_key, "t.yaml", "d", read);
  CHECK_FALSE(keyed.passed);
  CHECK_THAT(keyed.report,
             Catch::Contains("line 10, column 26: exp_labels: names and values must be strings"));
  const auto named = run_rule_test_text("tests:\n  - name: [a]\n", "t.yaml", "d", read);
  CHECK_FALSE(named.passed);
  CHECK_THAT(named.report, Catch::Contains("line 2, column 11: name: expected a string"));
}

TEST_CASE("the built-in pack loads, is complete and tests itself", "[rules][builtin]") {
  auto load = load_builtin_rules();
  for (const auto& e : load.errors) FAIL(to_string(e));
  REQUIRE_FALSE(load.groups.empty());
  std::set<std::string> names;
  for (const auto& g : load.groups) {
    for (const auto& r : g.rules) {
      INFO(r.name);
      CHECK(names.insert(r.name).second);  // alert names are unique across the pack
      REQUIRE(r.is_alert);
      const std::string severity = label_value(r.labels, "severity");
      // A rule whose severity depends on the case sets it in its expression
      // (label_replace(..., "severity", "warning", "", "")) and repeats it here; its tests
      // check the values.
      CHECK((severity == "info" || severity == "warning" || severity == "critical" ||
             severity == "{{ $labels.severity }}"));
      std::set<std::string> keys;
      for (const auto& [k, v] : r.annotations) keys.insert(k);
      CHECK(keys == std::set<std::string>{"description", "remediation", "summary"});
    }
  }
  // Every rule file has a test file, and every test passes on rdmatop's engine.
  std::set<std::string> rule_files;
  std::set<std::string> test_files;
  for (const auto& f : builtin_files()) {
    (is_builtin_rule_file(f.name) ? rule_files : test_files).insert(f.name);
  }
  for (const auto& rf : rule_files) {
    const std::string stem = rf.substr(0, rf.size() - 5);
    CHECK(test_files.count(stem + "_test.yaml") == 1);
  }
  for (const auto& f : builtin_files()) {
    if (is_builtin_rule_file(f.name)) continue;
    auto r = run_rule_test_text(f.content, f.name, "", builtin_file_reader());
    INFO(r.report);
    CHECK(r.passed);
  }
  // Every alert name of the pack is exercised by some test file (firing at least once).
  for (const auto& n : names) {
    bool tested = false;
    for (const auto& f : builtin_files()) {
      if (!is_builtin_rule_file(f.name) &&
          std::string(f.content).find("alertname: " + n + "\n") != std::string::npos) {
        tested = true;
      }
    }
    INFO(n);
    CHECK(tested);
  }
}
