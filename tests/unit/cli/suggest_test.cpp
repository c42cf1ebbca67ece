// "Did you mean" (cli/suggest.h): the edit distance and the closest-name choice, and the hints
// for a real CLI11 parse failure.
#include "cli/suggest.h"

#include <catch2/catch.hpp>

#include <algorithm>

namespace rdmatop {

TEST_CASE("edit distance counts insertions, deletions, substitutions and swaps", "[cli]") {
  CHECK(edit_distance("report", "report") == 0);
  CHECK(edit_distance("reprot", "report") == 1);  // adjacent swap
  CHECK(edit_distance("reort", "report") == 1);   // deletion
  CHECK(edit_distance("reportt", "report") == 1);
  CHECK(edit_distance("rexort", "report") == 1);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("exporter", "responder") > 2);
}

TEST_CASE("closest_name suggests only a close, unambiguous enough name", "[cli]") {
  const std::vector<std::string> commands{"report", "record", "rules", "demo", "exporter"};
  CHECK(closest_name("reprot", commands) == "report");
  CHECK(closest_name("expoter", commands) == "exporter");
  CHECK(closest_name("rule", commands) == "rules");
  CHECK_FALSE(closest_name("x", commands));       // one letter: anything is 1-2 edits away
  CHECK_FALSE(closest_name("rules", {"rules"}));  // the name itself is no suggestion
  CHECK_FALSE(closest_name("kubernetes", commands));
}

TEST_CASE("did_you_mean names the subcommand or flag CLI11 could not place", "[cli]") {
  CLI::App app{"test"};
  std::string value;
  CLI::App* exporter = app.add_subcommand("exporter", "serve");
  exporter->add_option("--listen", value, "address");
  app.add_subcommand("report", "report");
  app.require_subcommand(0, 1);
  const auto parse = [&](std::vector<std::string> args) {
    std::reverse(args.begin(), args.end());  // CLI11 takes the vector form in reverse order
    try {
      app.parse(args);
    } catch (const CLI::ParseError&) {
      return did_you_mean(app);
    }
    return std::vector<std::string>{};
  };
  CHECK(parse({"reprot"}) ==
        std::vector<std::string>{
            "rdmatop: unknown command 'reprot'; did you mean 'rdmatop report'?"});
  app.clear();
  CHECK(parse({"exporter", "--listn", "9879"}) ==
        std::vector<std::string>{
            "rdmatop: unknown flag --listn for rdmatop exporter; did you mean --listen?"});
  app.clear();
  CHECK(parse({"frobnicate"}).empty());
}

}  // namespace rdmatop
