// Every reader of an operator-named file must neither block on a FIFO nor read without bound
// (#22 item 4). Each FIFO case runs with a FifoUnblocker, so a reader that blocks fails the
// test instead of hanging the suite.
#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>
#include <string>

#include "collector/source/ethtool_source.h"
#include "probes/targets.h"
#include "rules/rule_set.h"
#include "tests/support/fifo_unblocker.h"
#include "tests/support/temp_dir.h"
#include "util/bounded_file.h"

namespace rdmatop {
namespace {

void check_refused_fifo(const Error& error, const std::string& path) {
  CHECK(error.code == EINVAL);
  CHECK_THAT(error.message, Catch::Contains(path) && Catch::Contains("a FIFO, not a regular file"));
}

TEST_CASE("bounded reader reads regular files and refuses FIFOs, directories and big files",
          "[bounded_file]") {
  test::TempDir dir;
  dir.write("ok", "hello\n");
  const auto ok = read_bounded_file(dir.file("ok"), 6);
  REQUIRE(ok.ok());
  CHECK(*ok == "hello\n");

  const auto big = read_bounded_file(dir.file("ok"), 5);
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().code == EFBIG);
  CHECK_THAT(big.error().message, Catch::Contains("larger than 5 bytes"));

  const test::FifoUnblocker fifo(dir.file("fifo"));
  const auto from_fifo = read_bounded_file(dir.file("fifo"), 1024);
  REQUIRE_FALSE(from_fifo.ok());
  check_refused_fifo(from_fifo.error(), dir.file("fifo"));

  const auto from_dir = read_bounded_file(dir.path(), 1024);
  REQUIRE_FALSE(from_dir.ok());
  CHECK(from_dir.error().code == EISDIR);

  const auto missing = read_bounded_file(dir.file("missing"), 1024);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ENOENT);
}

TEST_CASE("a FIFO in the ethtool dump directory is refused, not read for ever",
          "[bounded_file][ethtool_dump_source]") {
  const DumpReads reads = GENERATE(DumpReads::plain, DumpReads::cached);
  test::TempDir dir;
  const test::FifoUnblocker fifo(dir.file("eth0.txt"));
  const auto source = make_dump_ethtool_source(dir.path(), reads);
  const auto stats = source->stats("eth0");
  REQUIRE_FALSE(stats.ok());
  check_refused_fifo(stats.error(), dir.file("eth0.txt"));
}

TEST_CASE("rule files, web configs and scenarios named as a FIFO are refused",
          "[bounded_file][rules]") {
  test::TempDir dir;
  const test::FifoUnblocker fifo(dir.file("rules.yaml"));
  const auto text = read_text_file(dir.file("rules.yaml"));
  REQUIRE_FALSE(text.ok());
  check_refused_fifo(text.error(), dir.file("rules.yaml"));
  const auto load = load_rule_set({dir.file("rules.yaml")}, false);
  REQUIRE(load.errors.size() == 1);
  CHECK_THAT(load.errors[0], Catch::Contains("a FIFO"));
}

TEST_CASE("a target list that is a FIFO is reported unreadable", "[bounded_file][probes]") {
  test::TempDir dir;
  const test::FifoUnblocker fifo(dir.file("targets.txt"));
  probes::TargetFile watched(dir.file("targets.txt"));
  const auto list = watched.poll();
  REQUIRE(list.has_value());
  CHECK(list->unreadable);
  REQUIRE(list->errors.size() == 1);
  CHECK_THAT(list->errors[0], Catch::Contains("a FIFO"));
}

}  // namespace
}  // namespace rdmatop
