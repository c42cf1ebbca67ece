// AlertTemplates: the cached expansions of an alert's label and annotation templates follow
// the alert's labels and, where a template reads it, its value.
#include <catch2/catch.hpp>

#include "rules/alert_templates.h"

using namespace rdmatop;

namespace {

Rule templated_rule() {
  Rule rule;
  rule.name = "A";
  rule.labels = {{"where", "{{ $labels.device }}"}};
  rule.annotations = {{"description", "{{ $value }} on {{ $labels.device }}"},
                      {"summary", "port {{ $labels.port }}"}};
  return rule;
}

}  // namespace

TEST_CASE("alert templates change with a label value", "[rules][templates]") {
  const Rule rule = templated_rule();
  AlertTemplates cache;
  const Labels a{{"device", "mlx5_0"}, {"port", "1"}};
  const Labels b{{"device", "mlx5_0"}, {"port", "2"}};
  CHECK(cache.expand(rule, a, 1, {}) ==
        std::vector<std::string>{"mlx5_0", "1 on mlx5_0", "port 1"});
  CHECK(cache.expand(rule, b, 1, {}) ==
        std::vector<std::string>{"mlx5_0", "1 on mlx5_0", "port 2"});
  CHECK(cache.expand(rule, a, 1, {}) ==
        std::vector<std::string>{"mlx5_0", "1 on mlx5_0", "port 1"});
}

TEST_CASE("alert templates that read the value follow it", "[rules][templates]") {
  const Rule rule = templated_rule();
  AlertTemplates cache;
  const Labels a{{"device", "mlx5_0"}, {"port", "1"}};
  CHECK(cache.expand(rule, a, 1, {})[1] == "1 on mlx5_0");
  CHECK(cache.expand(rule, a, 2.5, {})[1] == "2.5 on mlx5_0");
  CHECK(cache.expand(rule, a, -0.0, {})[1] == "-0 on mlx5_0");
  CHECK(cache.expand(rule, a, 0.0, {})[1] == "0 on mlx5_0");
}

TEST_CASE("alert templates keep an expansion error in the text", "[rules][templates]") {
  Rule rule;
  rule.annotations = {{"x", "{{ $value | nosuch }}"}};
  AlertTemplates cache;
  const std::string text = cache.expand(rule, {}, 1, {})[0];
  CHECK(text.rfind("<error expanding template: ", 0) == 0);
  CHECK(cache.expand(rule, {}, 2, {})[0] == text);
}

TEST_CASE("alert templates forget alerts gone at a sweep", "[rules][templates]") {
  const Rule rule = templated_rule();
  AlertTemplates cache;
  cache.expand(rule, {{"device", "a"}}, 1, {});
  cache.expand(rule, {{"device", "b"}}, 1, {});
  cache.sweep();
  CHECK(cache.size() == 2);
  cache.expand(rule, {{"device", "b"}}, 1, {});
  cache.sweep();
  CHECK(cache.size() == 1);
  CHECK(cache.expand(rule, {{"device", "b"}}, 3, {})[1] == "3 on b");
}
