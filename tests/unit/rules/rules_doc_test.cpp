// docs/rules.md lists every built-in rule with its inputs, fallback and lifetime interpretation
// (the table between the rule-table markers, printed by scripts/gen-rule-table.py).
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "rules/builtin_pack.h"

using namespace rdmatop;

TEST_CASE("docs_lists_every_rule: docs/rules.md has a row for every built-in rule",
          "[rules][docs]") {
  std::ifstream in(std::string(RDMATOP_SOURCE_DIR) + "/docs/rules.md");
  REQUIRE(in.good());
  std::ostringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const auto begin = doc.find("<!-- rule-table:begin -->");
  const auto end = doc.find("<!-- rule-table:end -->");
  REQUIRE(begin != std::string::npos);
  REQUIRE(end != std::string::npos);
  const std::string table = doc.substr(begin, end - begin);
  auto load = load_builtin_rules();
  REQUIRE(load.errors.empty());
  std::size_t rules = 0;
  for (const RuleGroup& group : load.groups) {
    for (const Rule& rule : group.rules) {
      INFO(rule.name << " (regenerate with scripts/gen-rule-table.py)");
      const std::string file = rule.file.substr(rule.file.rfind('/') + 1);  // "builtin/x.yaml"
      CHECK(table.find("| " + rule.name + " | " + file + " |") != std::string::npos);
      ++rules;
    }
  }
  CHECK(rules > 60);
}
