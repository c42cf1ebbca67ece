// The metric catalogue (collector/normalize/metric_catalogue.h) against what uses it: its own
// conventions, docs/metrics.md (one check over every row), and every series the derivations
// emit on the fixture hosts and on every built-in simulator scenario.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "collector/collect.h"
#include "collector/normalize/metric_catalogue.h"
#include "collector/normalize/normalizer.h"
#include "collector/source/ethtool_source.h"
#include "collector/source/file_source.h"
#include "simulator/builtin_scenarios.h"
#include "simulator/simulator.h"

using namespace rdmatop;

namespace {

std::vector<std::string> catalogue_split(std::string_view list, char sep) {
  std::vector<std::string> out;
  while (!list.empty()) {
    const std::size_t at = list.find(sep);
    out.emplace_back(list.substr(0, at));
    if (at == std::string_view::npos) break;
    list.remove_prefix(at + 1);
  }
  return out;
}

std::string catalogue_trim(const std::string& s) {
  const std::size_t begin = s.find_first_not_of(' ');
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(' ') - begin + 1);
}

/// One row of a metrics table of docs/metrics.md, by column title.
using CatalogueDocRow = std::map<std::string, std::string>;

/// The rows of every table of docs/metrics.md whose first column is "series" or "family" and
/// whose first cell is one `name`, by that name (a name may be in several tables).
std::multimap<std::string, CatalogueDocRow> documented_metrics() {
  const std::string path = std::string(RDMATOP_SOURCE_DIR) + "/docs/metrics.md";
  std::ifstream in(path);
  INFO("reading " << path);
  REQUIRE(in.good());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const std::regex name_cell("`([a-z_][a-z0-9_]*)`");
  std::multimap<std::string, CatalogueDocRow> out;
  std::vector<std::string> header;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (!line.starts_with("|")) {
      header.clear();
      continue;
    }
    std::vector<std::string> cells = catalogue_split(std::string_view(line).substr(1), '|');
    if (!cells.empty() && catalogue_trim(cells.back()).empty()) cells.pop_back();
    for (std::string& cell : cells) cell = catalogue_trim(cell);
    if (i + 1 < lines.size() && lines[i + 1].starts_with("|---")) {
      header = cells;
      continue;
    }
    if (line.starts_with("|---") || header.empty() || cells.empty()) continue;
    if (header[0] != "series" && header[0] != "family") continue;
    std::smatch m;
    if (!std::regex_match(cells[0], m, name_cell)) continue;
    CatalogueDocRow row;
    for (std::size_t c = 0; c < cells.size() && c < header.size(); ++c) row[header[c]] = cells[c];
    out.emplace(m[1].str(), std::move(row));
  }
  return out;
}

/// Every series the derivations emit must have a catalogue row of its kind and scope.
void check_catalogued(const std::vector<Series>& series, std::set<std::string>& seen) {
  for (const Series& s : series) {
    INFO("series " << s.name << " origin " << s.origin);
    const MetricInfo* info = find_metric(s.name);
    REQUIRE(info != nullptr);
    seen.insert(std::string(info->name));
    const bool counter = info->kind == MetricKind::counter || info->kind == MetricKind::histogram;
    CHECK((s.kind == SeriesKind::counter) == counter);
    const bool port = !label_value(s.labels, "port").empty();
    const bool device = !label_value(s.labels, "device").empty();
    switch (info->scope) {
      case MetricScope::port:
        CHECK((port && device));
        break;
      case MetricScope::device:
        CHECK((device && !port));
        break;
      case MetricScope::host:
      case MetricScope::prober:
        CHECK_FALSE((device || port));
        break;
      case MetricScope::probe_stream:
        CHECK_FALSE(label_value(s.labels, "target").empty());
        break;
      case MetricScope::exporter:
        FAIL("the exporter's own families are not canonical series");
        break;
    }
  }
}

}  // namespace

TEST_CASE("catalogue rows follow the Prometheus conventions", "[metric_catalogue]") {
  const std::regex name_re("[a-z][a-z0-9_]*");
  const std::regex labels_re("([a-z_]+(,[a-z_]+)*)?");
  std::set<std::string_view> seen;
  REQUIRE_FALSE(metric_catalogue().empty());
  for (const MetricInfo& m : metric_catalogue()) {
    INFO(m.name);
    CHECK(std::regex_match(std::string(m.name), name_re));
    CHECK((m.name.starts_with("rdma_") || m.name.starts_with("rdmatop_") ||
           m.name.starts_with("process_")));
    CHECK(seen.insert(m.name).second);
    CHECK_FALSE(m.help.empty());
    CHECK_FALSE(m.unit.empty());
    CHECK(std::regex_match(std::string(m.labels), labels_re));
    CHECK(m.name.ends_with("_total") == (m.kind == MetricKind::counter));
    // Base units go in the name (Prometheus naming): bytes and seconds series say so.
    if (m.unit == "bytes") CHECK(m.name.find("_bytes") != std::string_view::npos);
    if (m.unit.starts_with("seconds")) CHECK(m.name.find("_seconds") != std::string_view::npos);
    // Only the exporter's raw families are untyped; only the prober has a histogram.
    if (m.kind == MetricKind::untyped) CHECK(m.scope == MetricScope::exporter);
    if (m.kind == MetricKind::histogram) CHECK(m.scope == MetricScope::probe_stream);
    CHECK(find_metric(m.name) == &m);
  }
}

TEST_CASE("find_metric maps histogram parts to their family", "[metric_catalogue]") {
  const MetricInfo* rtt = find_metric("rdma_probe_rtt_seconds");
  REQUIRE(rtt != nullptr);
  CHECK(rtt->kind == MetricKind::histogram);
  CHECK(find_metric("rdma_probe_rtt_seconds_bucket") == rtt);
  CHECK(find_metric("rdma_probe_rtt_seconds_sum") == rtt);
  CHECK(find_metric("rdma_probe_rtt_seconds_count") == rtt);
  CHECK(find_metric("rdma_probe_rtt_seconds_total") == nullptr);
  // Only a histogram has parts.
  CHECK(find_metric("rdma_probe_up_count") == nullptr);
  CHECK(find_metric("rdma_probe_sent") == nullptr);
  CHECK(find_metric("") == nullptr);
  REQUIRE(find_metric("rdma_probe_sent_total") != nullptr);
  CHECK(find_metric("rdma_probe_sent_total")->kind == MetricKind::counter);
  CHECK(is_probe_metric(*find_metric("rdmatop_prober_qps")));
  CHECK_FALSE(is_probe_metric(*find_metric("rdma_bytes_total")));
}

TEST_CASE("docs/metrics.md documents every catalogue row, and only those", "[metric_catalogue]") {
  const auto documented = documented_metrics();
  for (const MetricInfo& m : metric_catalogue()) {
    INFO(m.name << ": " << to_string(m.kind) << ", " << m.unit << ", " << to_string(m.scope));
    const auto [begin, end] = documented.equal_range(std::string(m.name));
    REQUIRE(begin != end);
    // At least one table gives its kind and unit, and no table contradicts them; a table with
    // a scope column starts it with the catalogue's scope.
    bool typed = false;
    for (auto it = begin; it != end; ++it) {
      const CatalogueDocRow& row = it->second;
      const auto type = row.find("type");
      const auto unit = row.find("unit");
      if (type != row.end()) CHECK(type->second == to_string(m.kind));
      if (unit != row.end()) CHECK(unit->second == m.unit);
      typed = typed || (type != row.end() && unit != row.end());
      const auto scope = row.find("scope + labels");
      if (scope != row.end())
        CHECK(catalogue_split(scope->second, ',').front() == to_string(m.scope));
    }
    CHECK(typed);
  }
  for (const auto& [name, row] : documented) {
    INFO("documented " << name);
    CHECK(find_metric(name) != nullptr);
  }
}

TEST_CASE("every series of the fixture hosts has a catalogue row", "[metric_catalogue]") {
  namespace fs = std::filesystem;
  std::set<std::string> seen;
  for (const char* host : {"mlx5", "bnxt", "irdma", "rxe", "degraded"}) {
    INFO("host " << host);
    const fs::path root = fs::path(RDMATOP_SOURCE_DIR) / "tests/fixtures/hosts" / host;
    const auto sysfs = make_directory_file_source((root / "sys").string());
    const auto ethtool = make_dump_ethtool_source((root / "ethtool").string());
    const CollectContext ctx{*sysfs, *ethtool, {}};
    check_catalogued(normalize(collect_snapshot(ctx, 1)), seen);
  }
  CHECK(seen.count("rdma_bytes_total") == 1);  // the walk saw the hosts at all
}

TEST_CASE("every series of every simulator scenario has a catalogue row", "[metric_catalogue]") {
  std::set<std::string> seen;
  for (const sim::Scenario& scenario : sim::builtin_scenarios().scenarios) {
    INFO("scenario " << scenario.name);
    // A handful of ticks spread over the timeline, so every phase's conditions are seen.
    sim::SimulatorOptions options;
    options.interval_s = std::max(1.0, scenario.duration_s() / 6);
    auto simulator = sim::Simulator::create(scenario, options);
    REQUIRE(simulator.ok());
    auto provider = sim::simulator_provider(**simulator);
    for (std::uint64_t seq = 1; seq <= 8; ++seq) {
      const auto snapshot = provider(seq);
      if (!snapshot) break;
      check_catalogued(normalize(*snapshot), seen);
    }
  }
  // The scenarios reach the prober, the host configuration and the processes.
  for (const char* name :
       {"rdma_probe_rtt_seconds", "rdma_firmware_info", "rdma_process_resources"}) {
    INFO(name);
    CHECK(seen.count(name) == 1);
  }
}
