// EvidenceIndex must pick exactly what the plain definition picks: scan every input sample in
// order, keep those agreeing with the alert on every label both carry, each series once, at
// most `max`. The reference scan below is that definition; the index is checked against it on
// hand-written cases and on a generated mix of label shapes.
#include <catch2/catch.hpp>

#include <random>
#include <set>

#include "rules/evidence_index.h"

using namespace rdmatop;

namespace {

std::vector<Evidence> reference_pick(const std::vector<promql::Vector>& inputs, const Labels& alert,
                                     std::size_t max) {
  std::vector<Evidence> out;
  std::set<std::string> seen;
  for (const auto& input : inputs) {
    for (const auto& s : input) {
      bool agrees = true;
      for (const auto& [k, v] : alert) {
        const std::string& mine = label_value(s.labels, k);
        if (!mine.empty() && mine != v) agrees = false;
      }
      if (!agrees || !seen.insert(series_key("", s.labels)).second) continue;
      out.push_back(Evidence{s.labels, s.value, std::nullopt, 0});
      if (out.size() >= max) return out;
    }
  }
  return out;
}

std::vector<std::string> keys_of(const std::vector<Evidence>& evidence) {
  std::vector<std::string> out;
  for (const auto& e : evidence)
    out.push_back(series_key("", e.labels) + "=" + std::to_string(e.value));
  return out;
}

promql::Sample sample(Labels labels, double v) {
  return promql::Sample{std::move(labels), v};
}

}  // namespace

TEST_CASE("evidence index picks what the plain scan picks", "[rules][evidence]") {
  const std::vector<promql::Vector> inputs = {
      {sample({{"__name__", "a"}, {"device", "d0"}, {"port", "1"}, {"priority", "3"}}, 1),
       sample({{"__name__", "a"}, {"device", "d0"}, {"port", "2"}, {"priority", "3"}}, 2),
       sample({{"__name__", "a"}, {"device", "d1"}, {"port", "1"}, {"priority", "3"}}, 3)},
      // Another shape (no priority) interleaved with the first in input order.
      {sample({{"__name__", "b"}, {"device", "d0"}, {"port", "1"}}, 4),
       sample({{"__name__", "b"}, {"device", "d1"}, {"port", "1"}}, 5),
       // An empty value is an absent label: agrees with any alert value.
       sample({{"__name__", "b"}, {"device", "d0"}, {"port", ""}}, 6)},
      // The same series again (a selector used twice): listed once.
      {sample({{"__name__", "a"}, {"device", "d0"}, {"port", "1"}, {"priority", "3"}}, 1)},
  };
  struct Case {
    const char* what;
    Labels alert;
    std::size_t max;
  };
  const std::vector<Case> cases = {
      {"device and port", {{"device", "d0"}, {"port", "1"}}, 8},
      {"device only", {{"device", "d0"}}, 8},
      {"label no input carries", {{"device", "d1"}, {"rule_extra", "x"}}, 8},
      {"priority narrows one shape only", {{"device", "d0"}, {"port", "1"}, {"priority", "3"}}, 8},
      {"no labels: everything", {}, 8},
      {"max stops early", {}, 2},
      {"nothing agrees", {{"device", "d9"}}, 8},
      {"empty alert value", {{"port", ""}}, 8},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    EvidenceIndex index(inputs);
    CHECK(keys_of(index.pick(c.alert, c.max)) == keys_of(reference_pick(inputs, c.alert, c.max)));
  }
  // Repeated queries on one index (the tables are built on the first) give the same answer.
  EvidenceIndex index(inputs);
  for (int round = 0; round < 2; ++round) {
    for (const auto& c : cases) {
      INFO(c.what << " round " << round);
      CHECK(keys_of(index.pick(c.alert, c.max)) == keys_of(reference_pick(inputs, c.alert, c.max)));
    }
  }
}

TEST_CASE("evidence index matches the plain scan on generated label shapes", "[rules][evidence]") {
  std::mt19937 rng(7);
  auto pick_of = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  const std::vector<std::string> names = {"device", "direction", "port", "priority"};
  std::vector<promql::Vector> inputs(3);
  for (auto& input : inputs) {
    for (int i = 0; i < 60; ++i) {
      Labels labels = {{"__name__", "m" + std::to_string(pick_of(2))}};
      for (const auto& n : names) {
        if (pick_of(3) != 0) labels.emplace_back(n, std::to_string(pick_of(3)));
      }
      input.push_back(sample(labels, i));
    }
  }
  EvidenceIndex index(inputs);
  for (int q = 0; q < 200; ++q) {
    Labels alert;
    for (const auto& n : names) {
      if (pick_of(2) != 0) alert.emplace_back(n, std::to_string(pick_of(3)));
    }
    const std::size_t max = static_cast<std::size_t>(1 + pick_of(10));
    INFO("query " << q);
    CHECK(keys_of(index.pick(alert, max)) == keys_of(reference_pick(inputs, alert, max)));
  }
}
