// CounterMap against std::map (its former type, the oracle), the builder's layouts, and the
// names shared between maps.
#include "collector/model/counter_map.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace rdmatop {
namespace {

using Oracle = std::map<std::string, std::uint64_t, std::less<>>;

Oracle as_oracle(const CounterMap& map) {
  Oracle out;
  std::string previous;
  for (const auto& [name, value] : map) {
    if (!out.empty()) CHECK(previous < name);  // iteration is sorted and unique
    previous = name;
    out.emplace(name, value);
  }
  CHECK(out.size() == map.size());
  return out;
}

/// Counters in a source's order, repeats allowed.
using Listed = std::vector<std::pair<std::string, std::uint64_t>>;

/// What std::map::try_emplace makes of them: the first value of a name.
Oracle first_wins(const Listed& listed) {
  Oracle out;
  for (const auto& [name, value] : listed) out.try_emplace(name, value);
  return out;
}

CounterMap build(const Listed& listed, CounterLayout* layout) {
  CounterMapBuilder builder(layout);
  for (const auto& [name, value] : listed) builder.add(name, value);
  CHECK(builder.added() == listed.size());
  return std::move(builder).finish();
}

TEST_CASE("CounterMap does what std::map did, operation by operation", "[counter_map]") {
  std::mt19937 random(7);
  const std::vector<std::string> names = {
      "a", "b",   "rx_prio3_pause", "rx_prio3_pause_duration", "np_cnp_sent",
      "",  "z z", "out_of_sequence"};
  CounterMap map;
  Oracle oracle;
  for (int step = 0; step < 2000; ++step) {
    const std::string& name = names[random() % names.size()];
    const std::uint64_t value = random() % 1000;
    switch (random() % 6) {
      case 0:
        CHECK(map.try_emplace(name, value).second == oracle.try_emplace(name, value).second);
        break;
      case 1:
        map[name] += value;
        oracle[name] += value;
        break;
      case 2:
        CHECK(map.insert_or_assign(name, value).second ==
              oracle.insert_or_assign(name, value).second);
        break;
      case 3:
        CHECK(map.erase(name) == oracle.erase(name));
        break;
      case 4:
        if (const auto it = map.find(name); it != map.end()) {
          map.erase(it);
          oracle.erase(name);
        }
        break;
      default: {
        const auto it = map.find(name);
        const auto expected = oracle.find(name);
        REQUIRE((it == map.end()) == (expected == oracle.end()));
        if (it != map.end()) {
          CHECK(it->first == name);
          CHECK(it->second == expected->second);
          CHECK(map.at(name) == expected->second);
        } else {
          CHECK_THROWS_AS(map.at(name), std::out_of_range);
        }
        CHECK(map.contains(name) == oracle.contains(name));
        CHECK(map.count(name) == oracle.count(name));
      }
    }
    REQUIRE(as_oracle(map) == oracle);
  }
  map.clear();
  CHECK(map.empty());
  CHECK(map.begin() == map.end());
}

TEST_CASE("a CounterMap from a list keeps the first value of a repeated name", "[counter_map]") {
  const CounterMap map{{"b", 2}, {"a", 1}, {"b", 3}};
  CHECK(as_oracle(map) == Oracle{{"a", 1}, {"b", 2}});
  CHECK(map == CounterMap{{"a", 1}, {"b", 2}});
  CHECK_FALSE(map == CounterMap{{"a", 1}, {"b", 3}});
  CHECK_FALSE(map == CounterMap{{"a", 1}, {"c", 2}});
  CHECK(CounterMap{} == CounterMap{});
}

TEST_CASE("CounterMap's names must be sorted, unique and one per value", "[counter_map]") {
  const auto names = [](std::vector<std::string> v) {
    return std::make_shared<const CounterNames>(std::move(v));
  };
  CHECK_NOTHROW(CounterMap(names({"a", "b"}), {1, 2}));
  CHECK_THROWS_AS(CounterMap(names({"b", "a"}), {1, 2}), std::invalid_argument);
  CHECK_THROWS_AS(CounterMap(names({"a", "a"}), {1, 2}), std::invalid_argument);
  CHECK_THROWS_AS(CounterMap(names({"a"}), {1, 2}), std::invalid_argument);
  CHECK_THROWS_AS(CounterMap(nullptr, {1}), std::invalid_argument);
}

TEST_CASE("values are written through a map's iterators, names are not shared by a change",
          "[counter_map]") {
  CounterMap first{{"a", 1}, {"b", 2}};
  CounterMap copy = first;
  REQUIRE(copy.names() == first.names());  // a copy shares the names
  for (auto&& [name, value] : copy) value *= 10;
  CHECK(as_oracle(copy) == Oracle{{"a", 10}, {"b", 20}});
  CHECK(as_oracle(first) == Oracle{{"a", 1}, {"b", 2}});
  copy["c"] = 30;  // a new name: the copy gets names of its own
  CHECK(copy.names() != first.names());
  CHECK(as_oracle(first) == Oracle{{"a", 1}, {"b", 2}});
  CHECK(as_oracle(copy) == Oracle{{"a", 10}, {"b", 20}, {"c", 30}});
  first.erase("a");
  CHECK(as_oracle(first) == Oracle{{"b", 2}});
  CHECK(as_oracle(copy) == Oracle{{"a", 10}, {"b", 20}, {"c", 30}});

  // Names a source made const (a cached listing) are copied before a change, never written.
  const auto listing = std::make_shared<const CounterNames>(CounterNames{"x", "y"});
  CounterMap listed(listing, {1, 2});
  listed["w"] = 0;
  CHECK(*listing == CounterNames{"x", "y"});
  CHECK(as_oracle(listed) == Oracle{{"w", 0}, {"x", 1}, {"y", 2}});
}

TEST_CASE("the builder sorts a source's order and keeps a repeated name's first value",
          "[counter_map]") {
  const Listed listed = {{"tx_bytes", 5}, {"rx_bytes", 4}, {"rx_bytes", 9}, {"a b", 1}, {"", 0}};
  CHECK(as_oracle(build(listed, nullptr)) == first_wins(listed));
  CHECK(build({}, nullptr).empty());
}

TEST_CASE(
    "a layout builds the next map of the same names without new names, and follows a "
    "change of names",
    "[counter_map]") {
  const Listed first = {{"tx_bytes", 5}, {"rx_bytes", 4}, {"rx_bytes", 9}, {"drops", 1}};
  CounterLayout layout;
  const CounterMap one = build(first, &layout);
  CHECK(as_oracle(one) == first_wins(first));
  REQUIRE(layout.names() != nullptr);
  CHECK(layout.names() == one.names());

  // The same names in the same order: the same names vector, this pass's values.
  const Listed again = {{"tx_bytes", 6}, {"rx_bytes", 7}, {"rx_bytes", 1}, {"drops", 2}};
  const CounterMap two = build(again, &layout);
  CHECK(two.names() == one.names());
  CHECK(as_oracle(two) == first_wins(again));

  // Each kind of change gives what a fresh sort gives, and becomes the layout.
  const std::vector<Listed> changes = {
      {{"tx_bytes", 1}, {"rx_bytes", 2}},                                  // shorter
      {{"tx_bytes", 1}, {"rx_bytes", 2}, {"drops", 3}, {"late", 4}},       // longer
      {{"rx_bytes", 1}, {"tx_bytes", 2}, {"drops", 3}},                    // reordered
      {{"tx_bytes", 1}, {"renamed", 2}, {"drops", 3}},                     // a name changed
      {{"tx_bytes", 1}, {"tx_bytes", 2}, {"drops", 3}, {"drops", 4}},      // repeats moved
      {},                                                                  // none
      {{"tx_bytes", 1}, {"rx_bytes", 2}, {"rx_bytes", 3}, {"drops", 4}}};  // back again
  for (const Listed& listed : changes) {
    const CounterMap changed = build(listed, &layout);
    CHECK(as_oracle(changed) == first_wins(listed));
    const CounterMap repeated = build(listed, &layout);
    CHECK(as_oracle(repeated) == first_wins(listed));
    if (!listed.empty()) CHECK(repeated.names() == changed.names());
  }
}

TEST_CASE("random source orders through one layout give what std::map gives", "[counter_map]") {
  std::mt19937 random(11);
  CounterLayout layout;
  Listed listed;
  for (int pass = 0; pass < 300; ++pass) {
    // Mostly the same names with new values; now and then a name added, dropped or repeated.
    for (auto& entry : listed) entry.second = random() % 100;
    switch (random() % 8) {
      case 0:
        listed.insert(listed.begin() + static_cast<long>(random() % (listed.size() + 1)),
                      {"c" + std::to_string(random() % 40), random() % 100});
        break;
      case 1:
        if (!listed.empty())
          listed.erase(listed.begin() + static_cast<long>(random() % listed.size()));
        break;
      default:
        break;
    }
    REQUIRE(as_oracle(build(listed, &layout)) == first_wins(listed));
  }
}

TEST_CASE("PerNames makes a value once per names vector and forgets the vectors gone",
          "[counter_map]") {
  PerNames<std::size_t> derived;
  int made = 0;
  const auto make = [&](const CounterNames& names) {
    ++made;
    return names.size();
  };
  const CounterMap first{{"a", 1}, {"b", 2}};
  CounterMap same_names = first;
  same_names["a"] = 5;  // a value changed: the names are still shared
  CHECK(derived.get(first.names(), make) == 2);
  CHECK(derived.get(same_names.names(), make) == 2);
  CHECK(made == 1);
  // Equal names in another vector: made again (the value may be positions in that vector).
  const CounterMap equal{{"a", 1}, {"b", 2}};
  CHECK(derived.get(equal.names(), make) == 2);
  CHECK(made == 2);
  {
    const CounterMap gone{{"x", 1}};
    CHECK(derived.get(gone.names(), make) == 1);
    CHECK(derived.size() == 3);
  }
  // The next vector made for drops the one no map holds any more.
  const CounterMap next{{"y", 1}, {"z", 2}, {"w", 3}};
  CHECK(derived.get(next.names(), make) == 3);
  CHECK(derived.size() == 3);
  CHECK(made == 4);
}

}  // namespace
}  // namespace rdmatop
