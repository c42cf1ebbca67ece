// SysfsObjectReader::read_counters: the map it makes from a directory, whatever order the
// FileSource lists it in, with a file set aside.
#include "collector/sysfs_object_reader.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/fake_file_source.h"

namespace rdmatop {
namespace {

/// The fake's listings in reverse order, one name twice: what no FileSource should hand out.
class DisorderlyFileSource final : public FileSource {
 public:
  explicit DisorderlyFileSource(const FileSource& inner) : inner_(inner) {}
  Result<std::string> read(std::string_view path) const override { return inner_.read(path); }
  Result<std::vector<std::string>> list(std::string_view dir) const override {
    auto listed = inner_.list(dir);
    if (!listed || listed->empty()) return listed;
    std::vector<std::string> names = std::move(listed).value();
    std::reverse(names.begin(), names.end());
    names.push_back(names.front());
    return names;
  }
  Result<std::string> read_link(std::string_view path) const override {
    return inner_.read_link(path);
  }
  std::string describe() const override { return "disorderly"; }

 private:
  const FileSource& inner_;
};

TEST_CASE(
    "read_counters makes the same map from a listing in any order, the file set aside "
    "out of it",
    "[sysfs_object_reader]") {
  testing::FakeFileSource fake;
  fake.file("dev/hw_counters/b_count", "2\n")
      .file("dev/hw_counters/a_count", "1\n")
      .file("dev/hw_counters/lifespan", "10\n")
      .file("dev/hw_counters/c_count", "3\n");
  const DisorderlyFileSource disorderly(fake);
  for (const FileSource* fs :
       {static_cast<const FileSource*>(&fake), static_cast<const FileSource*>(&disorderly)}) {
    INFO(fs->describe());
    ProblemLog log;
    SysfsObjectReader reader(*fs, "dev", "dev", log);
    CounterMap counters{{"stale", 9}};  // replaced, not added to
    std::optional<std::uint64_t> lifespan;
    CHECK(reader.read_counters("hw_counters", counters, "lifespan", &lifespan) ==
          SysfsObjectReader::DirOutcome::read);
    CHECK(counters == CounterMap{{"a_count", 1}, {"b_count", 2}, {"c_count", 3}});
    CHECK(lifespan == 10u);
    CHECK_FALSE(log.has_errors());
    // Without a file set aside, lifespan is a name like the others.
    CHECK(reader.read_counters("hw_counters", counters) == SysfsObjectReader::DirOutcome::read);
    CHECK(counters.at("lifespan") == 10);
    CHECK(counters.size() == 4);
  }
}

// An mlx5 device outside switchdev mode has no hw_counters/ of its own: read every pass, its
// absence must not cost a look-up of the device's directory (the check for a vanished owner),
// and a device that did vanish is still found by the required read after it.
TEST_CASE("a usually absent directory is absent without asking whether the owner vanished",
          "[sysfs_object_reader]") {
  constexpr auto kUsuallyAbsent = SysfsObjectReader::Presence::usually_absent;
  constexpr auto kList = testing::FakeFileSource::Op::list;
  constexpr auto kLookup = testing::FakeFileSource::Op::lookup;
  testing::FakeFileSource fake;
  fake.file("dev/node_type", "1: CA\n").dir("dev/ports/1");
  {
    ProblemLog log;
    SysfsObjectReader reader(fake, "dev", "dev", log);
    CounterMap counters;
    const std::size_t before = fake.count(kList, "dev");
    CHECK(reader.read_counters("hw_counters", counters, {}, nullptr, kUsuallyAbsent) ==
          SysfsObjectReader::DirOutcome::absent);
    // One listing: hw_counters/ itself; the owner is neither listed nor looked up after it.
    CHECK(fake.count(kList, "dev") - before == 1);
    CHECK(fake.count(kLookup, "dev") == 0);
    CHECK(counters.empty());
    CHECK_FALSE(reader.vanished());
    CHECK_FALSE(log.has_errors());
    // As `optional` the same absence asks whether the owner is still there: by a look-up of
    // its directory (one stat on sysfs), not a listing of it.
    const std::size_t optional_before = fake.count(kList, "dev");
    CHECK(reader.read_counters("hw_counters", counters) == SysfsObjectReader::DirOutcome::absent);
    CHECK(fake.count(kList, "dev") - optional_before == 1);
    CHECK(fake.count(kLookup, "dev") == 1);
    CHECK_FALSE(reader.vanished());
  }
  {
    testing::FakeFileSource gone;
    gone.dir("other");
    ProblemLog log;
    SysfsObjectReader reader(gone, "dev", "dev", log);
    CounterMap counters;
    CHECK(reader.read_counters("hw_counters", counters, {}, nullptr, kUsuallyAbsent) ==
          SysfsObjectReader::DirOutcome::absent);
    CHECK_FALSE(reader.vanished());
    CHECK(reader.list("ports", SysfsObjectReader::Presence::required) == nullptr);
    CHECK(reader.vanished());
    CHECK_FALSE(log.has_errors());
  }
  {
    // An optional absence whose owner is gone: the look-up finds it gone.
    testing::FakeFileSource gone;
    gone.dir("other");
    ProblemLog log;
    SysfsObjectReader reader(gone, "dev", "dev", log);
    CounterMap counters;
    CHECK(reader.read_counters("counters", counters) == SysfsObjectReader::DirOutcome::failed);
    CHECK(gone.count(kLookup, "dev") == 1);
    CHECK(reader.vanished());
    CHECK_FALSE(log.has_errors());
  }
}

}  // namespace
}  // namespace rdmatop
