// #22 item 8: a counter directory of 100,000 files made 100,000 series (182 MB). read_counters
// reads kMaxCounterFiles at most and says so in the object's status.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "collector/collect.h"
#include "collector/source/ethtool_source.h"
#include "collector/source/file_source.h"
#include "collector/sysfs_object_reader.h"
#include "tests/support/temp_dir.h"

namespace rdmatop {
namespace {

namespace fs = std::filesystem;

TEST_CASE("a counter directory with more files than any driver has is capped with a status",
          "[collector][limits]") {
  const test::TempDir dir;
  const fs::path sys = fs::path(dir.path()) / "sys";
  fs::copy(fs::path(RDMATOP_SOURCE_DIR) / "tests/fixtures/hosts/mlx5/sys", sys,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const fs::path hw = sys / "class/infiniband/mlx5_0/ports/1/hw_counters";
  REQUIRE(fs::is_directory(hw));
  for (std::size_t i = 0; i < kMaxCounterFiles + 100; ++i) {
    std::ofstream(hw / ("zz_fake_" + std::to_string(i))) << i << "\n";
  }
  const auto sysfs = make_directory_file_source(sys.string());
  const auto ethtool = make_dump_ethtool_source(dir.file("no-ethtool"));
  const CollectContext ctx{*sysfs, *ethtool, {}};
  Snapshot snapshot;
  collect_rdma_sysfs(ctx, snapshot);
  const PortSample* port = nullptr;
  for (const DeviceSample& d : snapshot.devices) {
    if (d.name == "mlx5_0") port = &d.ports.at(0);
  }
  REQUIRE(port != nullptr);
  // The first kMaxCounterFiles names in order, less `lifespan`, which is not a counter (the
  // collector takes it out of the map).
  CHECK(port->hw_counters.size() == kMaxCounterFiles - 1);
  CHECK(port->hw_counters_lifespan_ms.has_value());
  const auto status = std::find_if(snapshot.sources.begin(), snapshot.sources.end(),
                                   [](const SourceStatus& s) { return s.target == "mlx5_0/1"; });
  REQUIRE(status != snapshot.sources.end());
  CHECK(status->state == SourceState::error);
  CHECK_THAT(status->message, Catch::Contains("more than the 4096 a driver has; read the first "
                                              "4096 only"));
}

}  // namespace
}  // namespace rdmatop
