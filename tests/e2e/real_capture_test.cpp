// Runs the built binary on every capture set under tests/fixtures/real/ (captures of real hosts
// from public threads and fixtures, turned into offline trees by
// tests/fixtures/tools/real_capture_to_tree.py) and scores the findings against each set's
// expected.yaml, which was written from the thread before rdmatop ever ran on the set:
//   sick       -> at least one finding whose rule is in expect_any (or its "...High" sibling or
//                 its "RdmaLifetime..." twin: the same family read from totals);
//   healthy    -> no pending or firing finding of severity warning or critical;
//   unlabelled -> nothing to score (the source says nothing about the host's health).
// The per-set test (the binary reads the tree and prints a valid report) and the corpus score,
// the bar of issue #15 (named >= ceil(0.9 * sick), every healthy set clean), must both pass.
#include <sys/wait.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run_binary.h"

namespace fs = std::filesystem;

namespace {

using Run = rdmatop::test::BinaryRun;

struct CaptureSet {
  std::string name;
  std::string verdict;  // sick | healthy | unlabelled
  std::vector<std::string> expect_any;
  int expect_exit = -1;  // -1: any report exit code (0..2)
  /// The trees to read, relative to the source root: "tree", or one per paste of the same
  /// host in time order (tree-before, tree-mid, tree-after).
  std::vector<std::string> trees;
};

std::vector<CaptureSet> load_sets() {
  const fs::path root = fs::path(RDMATOP_SOURCE_DIR) / "tests/fixtures/real";
  std::vector<CaptureSet> sets;
  for (const auto& entry : fs::directory_iterator(root)) {
    const fs::path expected = entry.path() / "expected.yaml";
    if (!entry.is_directory() || !fs::exists(expected)) continue;
    const YAML::Node doc = YAML::LoadFile(expected.string());
    CaptureSet set;
    set.name = entry.path().filename().string();
    set.verdict = doc["verdict"].as<std::string>();
    if (doc["expect_any"]) {
      for (const auto& rule : doc["expect_any"]) set.expect_any.push_back(rule.as<std::string>());
    }
    if (doc["expect_exit"]) set.expect_exit = doc["expect_exit"].as<int>();
    // Several pastes of one host are each read on their own, as an operator would run rdmatop
    // on each, until the report reads a sequence of captures (issue #16).
    const std::string base = "tests/fixtures/real/" + set.name + "/";
    for (const char* tree : {"tree", "tree-before", "tree-mid", "tree-after"}) {
      if (fs::exists(entry.path() / tree)) set.trees.push_back(base + tree);
    }
    sets.push_back(std::move(set));
  }
  std::sort(sets.begin(), sets.end(),
            [](const CaptureSet& a, const CaptureSet& b) { return a.name < b.name; });
  return sets;
}

std::string report_args(const std::string& tree) {
  return "report --json --interval 0 --sysfs-root " + tree + "/sys --ethtool-dir " + tree +
         "/ethtool";
}

int severity_rank(const std::string& severity) {
  if (severity == "critical") return 3;
  if (severity == "warning") return 2;
  if (severity == "info") return 1;
  return 0;
}

/// True when a finding of `rule` names the expected rule `expected`: the rule itself, its
/// ratio-based sibling ("...High"), or its lifetime twin ("RdmaLifetime..." for "Rdma...", and
/// that twin's "...High"): one family, read live or from totals.
bool names(const std::string& rule, const std::string& expected) {
  const std::string twin = expected.starts_with("RdmaLifetime") || !expected.starts_with("Rdma")
                               ? expected
                               : "RdmaLifetime" + expected.substr(4);
  for (const std::string& candidate : {expected, expected + "High", twin, twin + "High"}) {
    if (rule == candidate) return true;
  }
  return false;
}

struct Score {
  bool named = false;
  std::string worst = "none";
  std::vector<std::string> rules;  // pending or firing findings, "rule(severity)"
};

Score score(const CaptureSet& set, const nlohmann::json& doc) {
  Score s;
  for (const auto& f : doc.value("findings", nlohmann::json::array())) {
    const std::string state = f.value("state", "");
    if (state == "resolved") continue;  // as the exit code: resolved findings do not count
    const std::string rule = f.value("rule", "");
    const std::string severity = f.value("severity", "");
    s.rules.push_back(rule + "(" + severity + ")");
    if (severity_rank(severity) > severity_rank(s.worst)) s.worst = severity;
    for (const std::string& expected : set.expect_any) s.named = s.named || names(rule, expected);
  }
  return s;
}

}  // namespace

TEST_CASE("real captures: rdmatop reads every set and prints a valid report", "[e2e][real]") {
  const auto sets = load_sets();
  REQUIRE_FALSE(sets.empty());
  for (const auto& set : sets) {
    SECTION(set.name) {
      REQUIRE_FALSE(set.trees.empty());
      for (const std::string& tree : set.trees) {
        const Run r = rdmatop::test::run_rdmatop(report_args(tree));
        INFO("set " << set.name << ": rdmatop " << report_args(tree) << " exited " << r.exit_code);
        if (set.expect_exit >= 0) {
          REQUIRE(r.exit_code == set.expect_exit);
        } else {
          REQUIRE(r.exit_code >= 0);
          REQUIRE(r.exit_code <= 2);
        }
        nlohmann::json doc;
        REQUIRE_NOTHROW(doc = nlohmann::json::parse(r.out));
        CHECK(doc.value("format", "") == "rdmatop.report");
        CHECK(doc["findings"].is_array());
      }
    }
  }
}

TEST_CASE("real captures: corpus score (issue #15 bar)", "[e2e][real]") {
  const auto sets = load_sets();
  REQUIRE_FALSE(sets.empty());
  int sick = 0;
  int named = 0;
  int healthy = 0;
  int healthy_clean = 0;
  std::ostringstream table;
  table << "real-capture corpus (set | verdict | named? | worst severity | findings)\n";
  for (const auto& set : sets) {
    // Named when any paste's report names it; clean only when every paste's report is.
    Score s;
    std::string exits;
    for (const std::string& tree : set.trees) {
      const Run r = rdmatop::test::run_rdmatop(report_args(tree));
      exits += (exits.empty() ? "" : ",") + std::to_string(r.exit_code);
      nlohmann::json doc;
      try {
        doc = nlohmann::json::parse(r.out);
      } catch (const nlohmann::json::exception&) {
        doc = nlohmann::json::object();
      }
      const Score one = score(set, doc);
      s.named = s.named || one.named;
      if (severity_rank(one.worst) > severity_rank(s.worst)) s.worst = one.worst;
      s.rules.insert(s.rules.end(), one.rules.begin(), one.rules.end());
    }
    std::string verdict_cell = set.verdict;
    std::string named_cell = "-";
    if (set.verdict == "sick") {
      ++sick;
      if (s.named) ++named;
      named_cell = s.named ? "named" : "NOT named";
    } else if (set.verdict == "healthy") {
      ++healthy;
      const bool clean = severity_rank(s.worst) < severity_rank("warning");
      if (clean) ++healthy_clean;
      named_cell = clean ? "clean" : "NOT clean";
    }
    std::string found;
    for (const auto& rule : s.rules) found += (found.empty() ? "" : " ") + rule;
    table << "  " << set.name << " | " << verdict_cell << " | " << named_cell << " | " << s.worst
          << " | " << (found.empty() ? "-" : found) << " (exit " << exits << ")\n";
  }
  const int bar = static_cast<int>(std::ceil(0.9 * sick));
  table << "named " << named << " of " << sick << " sick (bar " << bar << "), " << healthy_clean
        << " of " << healthy << " healthy clean";
  WARN(table.str());
  CHECK(healthy_clean == healthy);
  REQUIRE(named >= bar);
}
