// Rule files: valid groups load; malformed ones give file:line:column and what was expected,
// and the other groups of the file still load.
#include <catch2/catch.hpp>

#include "rules/rule_file.h"
#include "rules/template.h"

using namespace rdmatop;

TEST_CASE("rule file loads groups, rules, labels and annotations", "[rules][rule_file]") {
  const std::string text = R"(groups:
  - name: g
    interval: 30s
    rules:
      - record: job:x:rate1m
        expr: sum by (job) (rate(x[1m]))
      - alert: XHigh
        expr: job:x:rate1m > 1
        for: 2m
        keep_firing_for: 1m
        labels: {severity: warning}
        annotations:
          summary: 'x is {{ $value }} on {{ $labels.job }}'
)";
  auto load = parse_rule_file(text, "r.yaml");
  REQUIRE(load.errors.empty());
  REQUIRE(load.groups.size() == 1);
  const auto& g = load.groups[0];
  CHECK(g.interval_ms == 30000);
  REQUIRE(g.rules.size() == 2);
  CHECK_FALSE(g.rules[0].is_alert);
  CHECK(g.rules[1].is_alert);
  CHECK(g.rules[1].for_ms == 120000);
  CHECK(g.rules[1].keep_firing_for_ms == 60000);
  CHECK(g.rules[1].line == 7);
  CHECK(label_value(g.rules[1].labels, "severity") == "warning");
  // Round trip through the exporter's YAML.
  auto again = parse_rule_file(to_yaml(load.groups), "export.yaml");
  REQUIRE(again.errors.empty());
  REQUIRE(again.groups.size() == 1);
  CHECK(again.groups[0].rules[1].expr_text == g.rules[1].expr_text);
  CHECK(again.groups[0].rules[1].annotations == g.rules[1].annotations);
}

TEST_CASE("malformed rule files report file, line, column and what was expected",
          "[rules][rule_file]") {
  struct Case {
    std::string text;
    int line;
    int column;
    const char* message_part;
  };
  const Case cases[] = {
      {"groups: [", 1, 1, "YAML syntax error"},  // yaml-cpp marks where the document began
      {"groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: rate(x)\n", 5, 20,
       "expected type range vector"},
      // Block scalar: the error lands on the expression's own line and column.
      {"groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: |\n          x >\n"
       "            (y +)\n",
       7, 17, "unexpected \")\""},
      // Quoted scalar: one column past the quote.
      {"groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: \"x + \"\n", 5, 20,
       "unexpected end of input"},
      {"groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: x\n        for: 5\n", 6,
       14, "not a valid duration string"},
      {"groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: x\n        labels: "
       "{'bad-name': x}\n",
       6, 18, "invalid name \"bad-name\""},
      {"groups:\n  - name: g\n    rules:\n      - alert: A\n        exp: x\n", 5, 9,
       "field exp not found in rule"},
      {"groups:\n  - name: g\n    rules:\n      - alert: A\n", 4, 9, "field 'expr' must be set"},
      {"groups:\n  - name: g\n    rules:\n      - alert: A\n        record: b\n        expr: x\n",
       4, 9, "only one of 'record' and 'alert'"},
      {"groups:\n  - rules: []\n", 2, 5, "groupname must not be empty"},
      {"groups:\n  - name: g\n  - name: g\n", 3, 5, "repeated in the same file"},
      {"groups:\n  - name: g\n    rules:\n      - record: 'bad name'\n        expr: x\n", 4, 9,
       "invalid recording rule name"},
      {"groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: x\n        annotations: "
       "{summary: '{{ if x }}'}\n",
       6, 32, "not supported"},
      {"rules: []\n", 1, 1, "field rules not found in rule file"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    auto load = parse_rule_file(c.text, "f.yaml");
    REQUIRE_FALSE(load.errors.empty());
    const auto& e = load.errors[0];
    CHECK(e.file == "f.yaml");
    CHECK(e.line == c.line);
    CHECK(e.column == c.column);
    CHECK_THAT(e.message, Catch::Contains(c.message_part));
    CHECK_THAT(to_string(e), Catch::StartsWith("f.yaml:" + std::to_string(c.line) + ":"));
  }
}

TEST_CASE("a bad group does not hide the good ones", "[rules][rule_file]") {
  const std::string text =
      "groups:\n  - name: bad\n    rules:\n      - alert: A\n        expr: rate(\n"
      "  - name: good\n    rules:\n      - alert: B\n        expr: x > 1\n";
  auto load = parse_rule_file(text, "f.yaml");
  CHECK(load.errors.size() == 1);
  REQUIRE(load.groups.size() == 1);
  CHECK(load.groups[0].name == "good");
}

TEST_CASE("empty, garbage and non-UTF-8 files fail cleanly", "[rules][rule_file]") {
  CHECK(parse_rule_file("", "e.yaml").errors.empty());
  CHECK(parse_rule_file("", "e.yaml").groups.empty());
  CHECK_FALSE(parse_rule_file("\x01\x02\xff\xfe", "g.yaml").errors.empty());
  CHECK_FALSE(parse_rule_file("- 1\n- 2\n", "g.yaml").errors.empty());
  CHECK_FALSE(parse_rule_file("groups: 3\n", "g.yaml").errors.empty());
  CHECK_FALSE(parse_rule_file("groups:\n  - name: g\n    rules: [1]\n", "g.yaml").errors.empty());
}

TEST_CASE("annotation templates expand like Prometheus's", "[rules][template]") {
  const Labels labels = {{"device", "mlx5_0"}, {"port", "1"}};
  struct Case {
    const char* in;
    double value;
    const char* out;
  };
  const Case cases[] = {
      {"{{ $labels.device }} port {{ $labels.port }}", 0, "mlx5_0 port 1"},
      {"{{ .Labels.device }}={{ .Value }}", 2.5, "mlx5_0=2.5"},
      {"[{{ $labels.missing }}]", 0, "[]"},
      {"{{ $value | humanize }}", 1234567, "1.235M"},
      {"{{ $value | humanize }}", 0.00123, "1.23m"},
      {"{{ humanize $value }}", 0, "0"},
      {"{{ $value | humanize1024 }}", 2048, "2ki"},
      {"{{ $value | humanizePercentage }}", 0.2, "20%"},
      {"{{ $value | humanizeDuration }}", 3661, "1h 1m 1s"},
      {"{{ $value | humanizeDuration }}", 0.5, "500ms"},
      {"{{ printf \"%.2f\" $value }}", 3.14159, "3.14"},
      {"{{ $value | printf \"%.1f%%\" }}", 12.34, "12.3%"},
      {"{{ $labels.device | toUpper }}", 0, "MLX5_0"},
      {"a  {{- $labels.port -}}  b", 0, "a1b"},
      {"no actions", 0, "no actions"},
  };
  for (const auto& c : cases) {
    INFO(c.in);
    auto r = expand_template(c.in, labels, c.value);
    REQUIRE(r.ok());
    CHECK(*r == c.out);
  }
  CHECK_FALSE(expand_template("{{ $value", labels, 0).ok());
  CHECK_FALSE(expand_template("{{ nosuch $value }}", labels, 0).ok());
  CHECK_FALSE(expand_template("{{ if $value }}x{{ end }}", labels, 0).ok());
  CHECK_FALSE(expand_template("{{ $value \"unterminated }}", labels, 0).ok());
  // Found by fuzz/template_fuzz.cpp: a NUL inside a printf verb's flags was taken for a flag,
  // and snprintf got the invalid format "%." (ASan aborted in its printf interceptor).
  const std::string nul_in_spec("{{ printf \"%.\0e\" $value }}", 26);
  const auto nul = expand_template(nul_in_spec, labels, 1);
  REQUIRE_FALSE(nul.ok());
  CHECK_THAT(nul.error().message, Catch::Contains("unsupported verb"));
  // Found by fuzz/template_fuzz.cpp: a precision of 1414273133 made glibc's printf ask for
  // 5.6 GB. A width or precision above what the output holds is an error.
  const auto huge = expand_template("{{ printf \"%.000001414273133e\" $value }}", labels, 1);
  REQUIRE_FALSE(huge.ok());
  CHECK_THAT(huge.error().message, Catch::Contains("above 200"));
  CHECK_FALSE(expand_template("{{ printf \"%9999s\" $value }}", labels, 1).ok());
  CHECK(expand_template("{{ printf \"%8.3f\" $value }}", labels, 1).value() == "   1.000");
  CHECK(expand_template("{{ printf \"%200.1f\" $value }}", labels, 1).value().size() == 200U);
  // Found by fuzz/template_fuzz.cpp: a duration beyond 2^63 s was cast to an integer (UB).
  CHECK(expand_template("{{ humanizeDuration $value }}", labels, 8.3e87).value() == "8.3e+87s");
  CHECK(expand_template("{{ humanizeDuration $value }}", labels, -1e19).value() == "-1e+19s");
}

TEST_CASE("a key that is a list or a mapping is an error, never an abort (issue #22)",
          "[rules][rule_file]") {
  // An 8-byte file: this threw YAML::TypedBadConversion out of every command loading it.
  const char* const files[] = {
      "[a]: []\n",
      "groups:\n  - name: g\n    {x: 1}: y\n    rules: []\n",
      "groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: up\n        [k]: v\n",
      "groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: up\n"
      "        labels:\n          [k]: v\n",
  };
  for (const char* text : files) {
    INFO(text);
    RuleFileLoad load;
    REQUIRE_NOTHROW(load = parse_rule_file(text, "bad.yaml"));
    REQUIRE_FALSE(load.errors.empty());
    CHECK(to_string(load.errors.front()).find("a key must be a string") != std::string::npos);
  }
}
