// Absent is not zero, as a property: for every fixture host, hiding any ONE input file (a sysfs
// attribute, a link, an ethtool dump) must never create a warning or critical finding that the
// whole host does not have. A file that was not captured, or that vanished, is missing
// evidence; a rule that treats it as a zero, an "off" or a "down" raises a false alarm.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "collector/collect.h"
#include "collector/source/ethtool_source.h"
#include "collector/source/file_source.h"
#include "pipeline/monitor.h"
#include "rules/builtin_pack.h"
#include "tests/support/temp_dir.h"

using namespace rdmatop;
namespace fs = std::filesystem;

namespace {

/// The directory tree under `root`, with one path (resolved through symlinks) hidden: reads of
/// it fail with ENOENT and listings leave it out, as if it had not been captured.
class HidingFileSource : public FileSource {
 public:
  HidingFileSource(const std::string& root, fs::path hidden)
      : root_(root), inner_(make_directory_file_source(root)), hidden_(std::move(hidden)) {}

  Result<std::string> read(std::string_view relpath) const override {
    if (is_hidden(relpath)) return missing(relpath);
    return inner_->read(relpath);
  }
  Result<std::vector<std::string>> list(std::string_view reldir) const override {
    if (is_hidden(reldir)) return missing(reldir);
    auto names = inner_->list(reldir);
    if (!names) return names;
    std::vector<std::string> kept;
    for (auto& name : *names) {
      if (!is_hidden(std::string(reldir) + "/" + name)) kept.push_back(std::move(name));
    }
    return kept;
  }
  Result<std::string> read_link(std::string_view relpath) const override {
    if (is_hidden(relpath)) return missing(relpath);
    return inner_->read_link(relpath);
  }
  std::string describe() const override { return inner_->describe(); }

 private:
  /// The path as the kernel would resolve it: every symlink but the last component followed,
  /// so hiding a link hides the link, and hiding a file hides it under every path to it.
  bool is_hidden(std::string_view relpath) const {
    const fs::path p = root_ / fs::path(relpath);
    std::error_code ec;
    const fs::path parent = fs::weakly_canonical(p.parent_path(), ec);
    return !ec && parent / p.filename() == hidden_;
  }
  static Error missing(std::string_view path) {
    return Error{ENOENT, std::string(path) + ": No such file or directory (hidden by the test)"};
  }

  fs::path root_;
  std::unique_ptr<FileSource> inner_;
  fs::path hidden_;
};

/// "rule{labels}" of every warning or critical finding, live or lifetime, after two ticks.
std::set<std::string> alarms(const FileSource& sysfs, const std::string& ethtool_dir) {
  auto ethtool = make_dump_ethtool_source(ethtool_dir);
  const CollectContext ctx{sysfs, *ethtool, {}};
  auto load = load_builtin_rules();
  REQUIRE(load.errors.empty());
  Monitor monitor(live_provider(ctx), load.groups);
  monitor.step();
  const auto report = monitor.step();
  REQUIRE(report != nullptr);
  std::set<std::string> out;
  for (const Finding& f : report->findings) {
    if (f.severity >= Severity::warning && f.state != FindingState::resolved) {
      out.insert(series_key(f.rule, f.labels));
    }
  }
  return out;
}

std::vector<fs::path> input_files(const fs::path& root) {
  std::vector<fs::path> out;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    if (it->is_symlink() || it->is_regular_file())
      out.push_back(fs::weakly_canonical(it->path().parent_path()) / it->path().filename());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// `dir` holds sys/ and ethtool/ (the offline input format); `host` names it in messages.
void check_tree(const std::string& host, const fs::path& dir) {
  const std::string sys = (dir / "sys").string();
  const std::string ethtool = (dir / "ethtool").string();
  const auto whole = make_directory_file_source(sys);
  const std::set<std::string> baseline = alarms(*whole, ethtool);

  std::size_t tried = 0;
  for (const fs::path& hidden : input_files(sys)) {
    const HidingFileSource masked(sys, hidden);
    for (const std::string& alarm : alarms(masked, ethtool)) {
      INFO(host << ": hiding " << fs::relative(hidden, dir).string());
      if (baseline.count(alarm) == 0) FAIL_CHECK("new alarm " << alarm);
    }
    ++tried;
  }
  // The ethtool dumps: one file at a time removed from a copy of the directory (a capture
  // without any has none to remove).
  const std::vector<fs::path> dumps =
      fs::exists(ethtool) ? input_files(ethtool) : std::vector<fs::path>{};
  for (const fs::path& removed : dumps) {
    test::TempDir copy;
    for (const fs::path& other : dumps) {
      if (other != removed) fs::copy_file(other, copy.file(other.filename().string()));
    }
    for (const std::string& alarm : alarms(*whole, copy.path())) {
      INFO(host << ": without ethtool/" << removed.filename().string());
      if (baseline.count(alarm) == 0) FAIL_CHECK("new alarm " << alarm);
    }
    ++tried;
  }
  CHECK(tried > 3);
}

void check_host(const std::string& host) {
  check_tree(host, fs::path(RDMATOP_SOURCE_DIR) / "tests/fixtures/hosts" / host);
}

}  // namespace

TEST_CASE("absent is not zero: no single missing file creates an alarm (mlx5)", "[absent]") {
  check_host("mlx5");
}
TEST_CASE("absent is not zero: no single missing file creates an alarm (bnxt)", "[absent]") {
  check_host("bnxt");
}
TEST_CASE("absent is not zero: no single missing file creates an alarm (irdma)", "[absent]") {
  check_host("irdma");
}
TEST_CASE("absent is not zero: no single missing file creates an alarm (rxe)", "[absent]") {
  check_host("rxe");
}

TEST_CASE("absent is not zero: no single missing file creates an alarm (healthy real captures)",
          "[absent][real]") {
  // The healthy hosts of tests/fixtures/real (expected.yaml written from their threads).
  const fs::path real = fs::path(RDMATOP_SOURCE_DIR) / "tests/fixtures/real";
  std::size_t checked = 0;
  for (const auto& set : fs::directory_iterator(real)) {
    const std::string expected = test::read_file((set.path() / "expected.yaml").string());
    if (expected.find("verdict: healthy") == std::string::npos) continue;
    if (!fs::exists(set.path() / "tree" / "sys")) continue;
    check_tree(set.path().filename().string(), set.path() / "tree");
    ++checked;
  }
  CHECK(checked >= 5);
}
