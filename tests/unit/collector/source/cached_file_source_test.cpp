// The attribute-file cache (collector/source/cached_file_source.h) on a temporary tree: held
// descriptors re-read with pread, files rewritten in place, replaced, removed, a descriptor
// failing like a removed kernfs node, static values served from memory with their age, and a
// whole collection pass of the mlx5 fixture costing one pread per value the second time.
#include <linux/magic.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "collector/collect.h"
#include "collector/source/cached_file_source.h"
#include "collector/source/ethtool_source.h"
#include "tests/support/source_status_of.h"

namespace rdmatop {
namespace {

namespace fs = std::filesystem;

class CacheTree {
 public:
  CacheTree() {
    std::string tmpl = (fs::temp_directory_path() / "rdmatop-cache-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    dir_ = tmpl;
  }
  CacheTree(const CacheTree&) = delete;
  CacheTree& operator=(const CacheTree&) = delete;
  ~CacheTree() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  const fs::path& root() const { return dir_; }
  /// Rewrites in place (truncate + write), as sysfs values and the simulator's tree change.
  void write(const std::string& rel, const std::string& content) const {
    fs::create_directories((dir_ / rel).parent_path());
    std::ofstream(dir_ / rel, std::ios::binary | std::ios::trunc) << content;
  }
  /// Replaces by rename: a new inode under the old name.
  void replace(const std::string& rel, const std::string& content) const {
    write(rel + ".new", content);
    fs::rename(dir_ / (rel + ".new"), dir_ / rel);
  }
  void remove(const std::string& rel) const { fs::remove_all(dir_ / rel); }

 private:
  fs::path dir_;
};

TEST_CASE("a polled file is opened once and re-read with one pread", "[cached_file_source]") {
  CacheTree tree;
  tree.write("class/net/eth0/statistics/rx_bytes", "100\n");
  const auto src = make_cached_file_source(tree.root().string());
  src->begin_pass();
  REQUIRE(src->read_polled("class/net/eth0/statistics/rx_bytes").value() == "100\n");
  const FileCacheStats first = src->stats();
  CHECK(first.opens == 1);
  CHECK(first.held == 1);

  tree.write("class/net/eth0/statistics/rx_bytes", "250\n");  // in place: same inode
  src->begin_pass();
  REQUIRE(src->read_polled("class/net/eth0/statistics/rx_bytes").value() == "250\n");
  const FileCacheStats second = src->stats();
  CHECK(second.opens == 1);  // no open in the second pass
  // One system call for the value: the pass's read-ahead (a batch), or a pread without io_uring.
  CHECK(second.preads + second.batches == first.preads + first.batches + 1);
  CHECK(second.read_ahead == (second.batch_unavailable.empty() ? 1U : 0U));
}

TEST_CASE(
    "a value read ahead is served once, in its pass, and only for a file read the pass before",
    "[cached_file_source]") {
  CacheTree tree;
  const std::string file = "class/infiniband/rxe0/ports/1/counters/port_rcv_packets";
  tree.write(file, "1\n");
  const auto src = make_cached_file_source(tree.root().string());
  src->begin_pass();
  REQUIRE(src->read_polled(file).value() == "1\n");
  tree.write(file, "2\n");
  src->begin_pass();  // reads the file ahead: "2"
  if (!src->stats().batch_unavailable.empty()) {
    WARN("SKIPPED: no read-ahead without io_uring: " << src->stats().batch_unavailable);
    return;
  }
  tree.write(file, "3\n");
  CHECK(src->read_polled(file).value() == "2\n");  // the value as the pass began
  CHECK(src->read_polled(file).value() == "3\n");  // read again: asked of the file
  CHECK(src->stats().read_ahead == 1);

  src->begin_pass();  // reads it ahead again ("3"), but this pass does not ask for it
  tree.write(file, "4\n");
  src->begin_pass();  // not read last pass: not read ahead, and the unread "3" is void
  const std::uint64_t preads = src->stats().preads;
  CHECK(src->read_polled(file).value() == "4\n");
  CHECK(src->stats().preads == preads + 1);
  CHECK(src->stats().read_ahead == 1);

  // A value longer than its read-ahead asked for (a quarter more than the last read) is read
  // again whole, not cut.
  const std::string longer(400, '9');
  tree.write(file, longer + "\n");
  src->begin_pass();
  CHECK(src->read_polled(file).value() == longer + "\n");
  CHECK(src->stats().read_ahead == 2);
  CHECK(src->stats().preads == preads + 2);
}

TEST_CASE("the cache holds at most a quarter of the descriptor limit", "[cached_file_source]") {
  CacheTree tree;
  for (int i = 0; i < 40; ++i) tree.write("dev/counters/c" + std::to_string(i), "1\n");
  rlimit saved{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &saved) == 0);
  rlimit low = saved;
  low.rlim_cur = 64;  // the process keeps fewer than 64 open here (Catch2, the tree, stdio)
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &low) == 0);
  const auto src = make_cached_file_source(tree.root().string());
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &saved) == 0);
  src->begin_pass();
  for (int i = 0; i < 40; ++i) {
    CHECK(src->read_polled("dev/counters/c" + std::to_string(i)).value() == "1\n");
  }
  CHECK(src->stats().held == 16);  // 64 / 4; the other 24 files are opened, read and closed
  CHECK(src->stats().opens == 40);
}

TEST_CASE("a file replaced or removed between passes is not read through the old descriptor",
          "[cached_file_source]") {
  CacheTree tree;
  tree.write("dev/ports/1/counters/port_rcv_data", "7\n");
  const auto src = make_cached_file_source(tree.root().string());
  src->begin_pass();
  REQUIRE(src->read_polled("dev/ports/1/counters/port_rcv_data").value() == "7\n");

  tree.replace("dev/ports/1/counters/port_rcv_data", "8\n");
  src->begin_pass();  // the rename is reported by inotify: the descriptor is dropped
  CHECK(src->read_polled("dev/ports/1/counters/port_rcv_data").value() == "8\n");
  CHECK(src->stats().opens == 2);

  tree.remove("dev/ports/1/counters/port_rcv_data");
  src->begin_pass();
  const auto gone = src->read_polled("dev/ports/1/counters/port_rcv_data");
  REQUIRE_FALSE(gone.ok());
  CHECK(gone.error().code == ENOENT);
  CHECK(src->stats().held == 0);

  tree.write("dev/ports/1/counters/port_rcv_data", "9\n");  // the device came back
  src->begin_pass();
  CHECK(src->read_polled("dev/ports/1/counters/port_rcv_data").value() == "9\n");
}

TEST_CASE("a held descriptor failing like a removed kernfs node is closed and reopened",
          "[cached_file_source]") {
  CacheTree tree;
  tree.write("class/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer", "3\n");
  tree.write("class/infiniband/mlx5_0/ports/1/hw_counters/rx_write_requests", "4\n");
  bool unplugged = false;
  FileCacheOptions options;
  options.pread = [&](int fd, void* buf, std::size_t n, off_t off) -> ssize_t {
    if (unplugged) {
      errno = ENODEV;  // fs/kernfs/file.c: kernfs_get_active fails once the node is removed
      return -1;
    }
    return ::pread(fd, buf, n, off);
  };
  const auto src = make_cached_file_source(tree.root().string(), options);
  const std::string dir = "class/infiniband/mlx5_0/ports/1/hw_counters";
  src->begin_pass();
  REQUIRE(src->list_static(dir).value()->size() == 2);
  REQUIRE(src->read_polled(dir + "/out_of_buffer").ok());
  REQUIRE(src->read_polled(dir + "/rx_write_requests").ok());
  REQUIRE(src->stats().held == 2);

  unplugged = true;  // the device vanishes mid-pass
  const auto failed = src->read_polled(dir + "/out_of_buffer");
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().code == ENODEV);
  CHECK(src->stats().held == 0);  // every descriptor of that directory is closed
  const std::uint64_t listings = src->stats().listings;
  unplugged = false;

  src->begin_pass();  // next discovery: listed and opened again
  REQUIRE(src->list_static(dir).value()->size() == 2);
  CHECK(src->stats().listings == listings + 1);
  CHECK(src->read_polled(dir + "/out_of_buffer").value() == "3\n");
  CHECK(src->stats().held == 1);
}

TEST_CASE("a directory read ahead gives what reading each file gives", "[cached_file_source]") {
  CacheTree tree;
  const std::string dir = "class/infiniband/mlx5_0/ports/1/hw_counters";
  tree.write(dir + "/out_of_buffer", "3\n");
  tree.write(dir + "/empty", "");
  tree.write(dir + "/long", std::string(300, '7') + "\n");  // longer than a counter's slot
  tree.write(dir + "/rx_write_requests", "18446744073709551615\n");
  const Listing names = std::make_shared<const std::vector<std::string>>(
      std::vector<std::string>{"empty", "long", "missing", "out_of_buffer", "rx_write_requests"});
  for (const bool batch : {true, false}) {
    FileCacheOptions options;
    options.batch_reads = batch;
    const auto src = make_cached_file_source(tree.root().string(), options);
    const auto each = [&] {
      std::vector<Result<std::string>> out;
      for (const auto& name : *names) out.push_back(src->read_polled(dir + "/" + name));
      return out;
    };
    const auto same = [](const std::vector<Result<std::string>>& a,
                         const std::vector<Result<std::string>>& b) {
      REQUIRE(a.size() == b.size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        CHECK(a[i].ok() == b[i].ok());
        if (a[i].ok() && b[i].ok()) CHECK(a[i].value() == b[i].value());
        if (!a[i].ok() && !b[i].ok()) CHECK(a[i].error().code == b[i].error().code);
      }
    };
    std::vector<Result<std::string>> many;
    src->begin_pass();
    src->read_polled_many(dir, names, many);  // first pass: each file opened and held
    same(many, each());
    CHECK(many[2].error().code == ENOENT);
    CHECK(many[1].value().size() == 301);

    tree.write(dir + "/out_of_buffer", "4\n");  // rewritten in place: the held file reads it
    const FileCacheStats before = src->stats();
    src->begin_pass();
    src->read_polled_many(dir, names, many);  // the pass's read-ahead
    const FileCacheStats ahead = src->stats();
    CHECK(many[3].value() == "4\n");
    src->read_polled_many(dir, names, many);  // again in the same pass: asked of the files
    const FileCacheStats after = src->stats();
    same(many, each());
    CHECK(many[3].value() == "4\n");
    if (!batch) {
      CHECK(after.batch_unavailable == "batch_reads off");
      CHECK(after.batches == before.batches);
      CHECK(after.read_ahead == before.read_ahead);
    } else if (!after.batch_unavailable.empty()) {
      WARN("SKIPPED the batch checks: " << after.batch_unavailable);
    } else {
      // The four held files read ahead in one call, the long one too (its slot is sized by
      // its last read), and nothing else asked of the kernel.
      CHECK(ahead.read_ahead - before.read_ahead == 4);
      CHECK(ahead.batches - before.batches == 1);
      CHECK(ahead.preads == before.preads);
      // Then by pread, one each: the read-ahead serves each value once.
      CHECK(after.batches == ahead.batches);
      CHECK(after.preads - ahead.preads == 4);
    }

    fs::remove(tree.root() / dir / "out_of_buffer");  // gone between passes
    src->begin_pass();
    src->read_polled_many(dir, names, many);
    same(many, each());
    CHECK(many[3].error().code == ENOENT);
    CHECK(many[4].value() == "18446744073709551615\n");
    tree.write(dir + "/out_of_buffer", "3\n");
  }
}

TEST_CASE("a listing read again from its kept descriptors follows every change of the files",
          "[cached_file_source]") {
  CacheTree tree;
  const std::string dir = "class/infiniband/mlx5_0/ports/1/hw_counters";
  const std::vector<std::string> files = {"np_cnp_sent", "out_of_buffer", "rp_cnp_handled"};
  for (const auto& name : files) tree.write(dir + "/" + name, "1\n");
  const auto src = make_cached_file_source(tree.root().string(), FileCacheOptions{});
  const Listing names = src->list_static(dir).value();
  REQUIRE(*names == files);
  // Each pass as reading every file by itself sees it (an uncached source: the oracle).
  const auto plain = make_directory_file_source(tree.root().string());
  std::uint64_t planned = 0;
  const auto pass = [&](bool expect_plan) {
    src->begin_pass();
    std::vector<Result<std::string>> got;
    src->read_polled_many(dir, names, got);
    REQUIRE(got.size() == files.size());
    for (std::size_t i = 0; i < files.size(); ++i) {
      INFO(files[i]);
      const auto want = plain->read(dir + "/" + files[i]);
      REQUIRE(got[i].ok() == want.ok());
      if (want.ok()) CHECK(got[i].value() == want.value());
      if (!want.ok()) CHECK(got[i].error().code == want.error().code);
    }
    const FileCacheStats stats = src->stats();
    if (!stats.batch_unavailable.empty()) return;  // said once below
    CHECK(stats.planned - planned == (expect_plan ? 1U : 0U));
    planned = stats.planned;
  };
  pass(false);  // opens every file
  pass(false);  // reads them in one batch, and keeps the plan
  if (!src->stats().batch_unavailable.empty()) {
    WARN("SKIPPED the plan checks: " << src->stats().batch_unavailable);
    return;
  }
  pass(true);
  tree.write(dir + "/out_of_buffer", "2\n");  // rewritten in place: the held file reads it
  pass(true);
  tree.replace(dir + "/np_cnp_sent", "3\n");  // a new inode: the old descriptor must not serve
  pass(false);
  pass(false);  // opened again in the pass before: the plan is made again
  pass(true);
  tree.remove(dir + "/rp_cnp_handled");  // gone: ENOENT, not the unlinked file's last value
  pass(false);
  pass(false);
  tree.write(dir + "/rp_cnp_handled", "4\n");  // back
  pass(false);
  pass(false);
  pass(true);
  // Another listing object with the same names takes the general path (its address is new).
  const Listing copy = std::make_shared<const std::vector<std::string>>(*names);
  std::vector<Result<std::string>> got;
  const std::uint64_t before = src->stats().planned;
  src->read_polled_many(dir, copy, got);
  CHECK(src->stats().planned == before);
  REQUIRE(got.size() == 3);
  CHECK(got[0].value() == "3\n");
  CHECK(got[2].value() == "4\n");
}

TEST_CASE("a file longer than the first read is read whole in few reads, up to the size limit",
          "[cached_file_source]") {
  CacheTree tree;
  // Lengths around the first read (4 KiB) and the next (16 KiB): a read that fills what it asked
  // for is followed by another (a shorter one is the end).
  const std::vector<std::pair<std::size_t, std::uint64_t>> lengths_and_reads = {
      {4095, 1}, {4096, 2}, {4097, 2}, {16 * 1024, 2}, {20 * 1024, 3}, {20 * 1024 + 1, 3}};
  std::string text;
  for (std::size_t i = 0; text.size() < 30 * 1024; ++i) text += std::to_string(i) + "\n";
  FileCacheOptions options;
  options.max_read_size = 25 * 1024;
  const auto src = make_cached_file_source(tree.root().string(), options);
  for (const auto& [length, reads] : lengths_and_reads) {
    INFO(length << " bytes");
    const std::string rel = "dump" + std::to_string(length);
    tree.write(rel, text.substr(0, length));
    const std::uint64_t before = src->stats().preads;
    const auto got = src->read_polled(rel);
    REQUIRE(got.ok());
    CHECK(got.value() == text.substr(0, length));
    CHECK(src->stats().preads - before == reads);
    CHECK(src->read_polled(rel).value() == text.substr(0, length));  // held: the same again
  }
  tree.write("too_long", text.substr(0, 25 * 1024 + 1));
  const auto too_long = src->read_polled("too_long");
  REQUIRE_FALSE(too_long.ok());
  CHECK(too_long.error().code == EFBIG);
  tree.write("at_limit", text.substr(0, 25 * 1024));
  CHECK(src->read_polled("at_limit").value().size() == 25 * 1024);
}

/// Options whose clock reads `now` (which the test moves) and whose refresh period is 60 s.
FileCacheOptions clocked_options(const std::chrono::steady_clock::time_point& now) {
  FileCacheOptions options;
  options.clock = [&now] { return now; };
  options.refresh_period = std::chrono::seconds(60);
  return options;
}

TEST_CASE("a static value is served from memory with its age until it changes",
          "[cached_file_source]") {
  CacheTree tree;
  tree.write("class/infiniband/mlx5_0/fw_ver", "22.31.1014\n");
  auto now = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  const auto src = make_cached_file_source(tree.root().string(), clocked_options(now));
  std::chrono::nanoseconds age{-1};
  src->begin_pass();
  REQUIRE(src->read_static("class/infiniband/mlx5_0/fw_ver", &age).value() == "22.31.1014\n");
  CHECK(age == std::chrono::nanoseconds{0});
  CHECK(src->stats().opens == 1);

  now += std::chrono::seconds(5);
  src->begin_pass();
  REQUIRE(src->read_static("class/infiniband/mlx5_0/fw_ver", &age).value() == "22.31.1014\n");
  CHECK(age == std::chrono::seconds(5));  // stale is not current: the age says how stale
  CHECK(src->stats().opens == 1);
  CHECK(src->stats().static_hits == 1);

  tree.write("class/infiniband/mlx5_0/fw_ver", "22.36.1010\n");  // firmware updated in place
  src->begin_pass();
  CHECK(src->read_static("class/infiniband/mlx5_0/fw_ver", &age).value() == "22.36.1010\n");
  CHECK(age == std::chrono::nanoseconds{0});

  now += std::chrono::seconds(61);  // the refresh period ends: read again though unchanged
  src->begin_pass();
  CHECK(src->read_static("class/infiniband/mlx5_0/fw_ver", &age).value() == "22.36.1010\n");
  CHECK(age == std::chrono::nanoseconds{0});
  CHECK(src->stats().opens == 3);

  src->invalidate("class/infiniband/mlx5_0");  // a notification the cache cannot see itself
  CHECK(src->read_static("class/infiniband/mlx5_0/fw_ver").ok());
  CHECK(src->stats().opens == 4);
}

/// Counts what a collection asks of its sysfs source, forwarding to the real one.
class CountingFileSource final : public FileSource {
 public:
  explicit CountingFileSource(const FileSource& inner) : inner_(inner) {}
  Result<std::string> read(std::string_view p) const override { return inner_.read(p); }
  Result<std::vector<std::string>> list(std::string_view p) const override {
    return inner_.list(p);
  }
  Result<std::string> read_link(std::string_view p) const override { return inner_.read_link(p); }
  std::string describe() const override { return inner_.describe(); }
  Result<std::string> read_polled(std::string_view p) const override {
    ++polled;
    return inner_.read_polled(p);
  }
  void read_polled_many(std::string_view dir, const Listing& names,
                        std::vector<Result<std::string>>& out) const override {
    polled += names->size();
    ++polled_directories;
    inner_.read_polled_many(dir, names, out);
  }
  Result<std::string> read_static(std::string_view p,
                                  std::chrono::nanoseconds* age) const override {
    return inner_.read_static(p, age);
  }
  Result<Listing> list_static(std::string_view p) const override { return inner_.list_static(p); }
  Result<std::string> read_link_static(std::string_view p) const override {
    return inner_.read_link_static(p);
  }
  Result<std::vector<std::string>> list_current(std::string_view p) const override {
    return inner_.list_current(p);
  }
  Derived derive_static(std::string_view key, std::span<const std::string> inputs, Changes changes,
                        const std::function<Derived()>& make) const override {
    return inner_.derive_static(key, inputs, changes, make);
  }
  void begin_pass() const override { inner_.begin_pass(); }
  mutable std::uint64_t polled = 0;
  mutable std::uint64_t polled_directories = 0;  ///< read_polled_many calls

 private:
  const FileSource& inner_;
};

TEST_CASE(
    "the second collection of the mlx5 fixture reads each polled value once, a counter "
    "directory in one system call",
    "[cached_file_source]") {
  CacheTree tree;
  fs::copy(fs::path(RDMATOP_SOURCE_DIR) / "tests/fixtures/hosts/mlx5/sys", tree.root() / "sys",
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const auto plain = make_directory_file_source((tree.root() / "sys").string());
  const auto cached = make_cached_file_source((tree.root() / "sys").string());
  const CountingFileSource counting(*cached);
  auto ethtool = make_dump_ethtool_source((tree.root() / "no-ethtool").string());
  const CollectContext plain_ctx{*plain, *ethtool, DeviceFilter{}};
  const CollectContext cached_ctx{counting, *ethtool, DeviceFilter{}};

  const Snapshot reference = collect_snapshot(plain_ctx, 1);
  Snapshot first = collect_snapshot(cached_ctx, 1);
  const FileCacheStats after_first = cached->stats();
  const std::uint64_t polled_first = counting.polled;
  const std::uint64_t directories_first = counting.polled_directories;
  Snapshot second = collect_snapshot(cached_ctx, 2);
  const FileCacheStats after_second = cached->stats();

  REQUIRE(!reference.devices.empty());
  // The same values as the plain source (clocks, durations and ages aside).
  const auto comparable = [](Snapshot s) {
    s.seq = 0;
    s.taken = {};
    s.wall = {};
    for (auto& st : s.sources) st.duration = {};
    for (auto& d : s.devices) {
      d.static_age = {};
      for (auto& p : d.ports) p.gid_table_age = {};
    }
    for (auto& n : s.netdevs) n.static_age = {};
    return s;
  };
  CHECK(comparable(first) == comparable(reference));
  CHECK(comparable(second) == comparable(reference));
  // The counter maps of both passes share their names: the directory's listing, held by the
  // cache (a pass allocates the values only).
  std::size_t shared_maps = 0;
  for (std::size_t d = 0; d < second.devices.size(); ++d) {
    for (std::size_t p = 0; p < second.devices[d].ports.size(); ++p) {
      for (const auto member : {&PortSample::counters, &PortSample::hw_counters}) {
        const CounterMap& now = second.devices[d].ports[p].*member;
        if (now.empty()) continue;
        CHECK(now.names() == (first.devices[d].ports[p].*member).names());
        ++shared_maps;
      }
    }
  }
  CHECK(shared_maps > 0);
  // Second pass: nothing opened, each polled value read once: all of them read ahead as the
  // pass begins, in one io_uring_enter per 256 values (the ring's depth), the counter
  // directories and the single values (a port's state, rate) alike; without io_uring, one
  // pread each.
  const std::uint64_t polled_second = counting.polled - polled_first;
  const std::uint64_t directories = counting.polled_directories - directories_first;
  const std::uint64_t preads = after_second.preads - after_first.preads;
  const std::uint64_t ahead = after_second.read_ahead - after_first.read_ahead;
  CHECK(after_second.opens == after_first.opens);
  CHECK(preads + ahead == polled_second);
  if (!after_second.batch_unavailable.empty()) {
    WARN("SKIPPED the batch checks: " << after_second.batch_unavailable
                                      << "; every value was read by pread");
    CHECK(ahead == 0);
  } else {
    REQUIRE(directories > 0);
    CHECK(ahead == polled_second);
    CHECK(after_second.batches - after_first.batches > 0);
    CHECK(after_second.batches - after_first.batches <= (polled_second + 255) / 256);
  }
  // Nothing is listed again, not class/infiniband (inotify would tell of a new device), not even
  // what is absent (the fixture's two PCI functions have no
  // msi_irqs/): its absence is kept, watched through its parent.
  CHECK(after_second.listings == after_first.listings);
  CHECK(after_second.static_hits > after_first.static_hits);
  CHECK(polled_second == polled_first);
  // Each device's identity and each port's GID table were parsed in the first pass and handed
  // out again in the second.
  std::size_t derived = second.devices.size();
  for (const DeviceSample& device : second.devices) derived += device.ports.size();
  CHECK(after_first.derived_made == derived);
  CHECK(after_second.derived_made == after_first.derived_made);
  CHECK(after_second.derived_hits - after_first.derived_hits == derived);
}

/// What derive_static's tests derive: the files' contents, joined.
struct Joined final : DerivedValue {
  std::string text;
};

/// Derives the contents of `files` through `src` (read_static), counting the calls of make.
Derived derive_joined(const FileSource& src, const std::vector<std::string>& inputs,
                      const std::vector<std::string>& files, int& makes,
                      Changes changes = Changes::unannounced) {
  return src.derive_static(inputs.front(), inputs, changes, [&] {
    ++makes;
    auto joined = std::make_shared<Joined>();
    std::chrono::nanoseconds oldest{0};
    for (const std::string& file : files) {
      std::chrono::nanoseconds age{0};
      const auto content = src.read_static(file, &age);
      joined->text += content ? *content : std::string("-");
      oldest = std::max(oldest, age);
    }
    return Derived{joined, oldest};
  });
}

std::string text_of(const Derived& derived) {
  REQUIRE(derived.value != nullptr);
  return dynamic_cast<const Joined&>(*derived.value).text;
}

TEST_CASE("what is derived from static values is kept until one of them changes",
          "[cached_file_source]") {
  CacheTree tree;
  tree.write("p/1/gids/0", "a\n");
  tree.write("p/1/gids/1", "b\n");
  tree.write("p/1/gid_attrs/types/0", "t\n");
  tree.write("p/1/state", "4: ACTIVE\n");
  auto now = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  const auto src = make_cached_file_source(tree.root().string(), clocked_options(now));
  const std::vector<std::string> inputs = {"p/1/gids", "p/1/gid_attrs/types"};
  std::vector<std::string> files = {"p/1/gids/0", "p/1/gids/1", "p/1/gid_attrs/types/0"};
  int makes = 0;

  src->begin_pass();
  REQUIRE(src->read_static("p/1/state").ok());  // p/1 itself watched too
  const Derived first = derive_joined(*src, inputs, files, makes);
  CHECK(text_of(first) == "a\nb\nt\n");
  CHECK(first.age == std::chrono::nanoseconds{0});
  CHECK(makes == 1);

  now += std::chrono::seconds(5);
  src->begin_pass();
  const Derived again = derive_joined(*src, inputs, files, makes);
  CHECK(makes == 1);
  CHECK(again.value == first.value);  // the same object, not a copy
  CHECK(again.age == std::chrono::seconds(5));
  CHECK(src->stats().derived_hits == 1);

  SECTION("a file of an input rewritten in place") {
    tree.write("p/1/gids/1", "c\n");
    src->begin_pass();
    CHECK(text_of(derive_joined(*src, inputs, files, makes)) == "a\nc\nt\n");
    CHECK(makes == 2);
  }
  SECTION("a file created in an input") {
    tree.write("p/1/gid_attrs/types/1", "u\n");
    files.push_back("p/1/gid_attrs/types/1");
    src->begin_pass();
    CHECK(text_of(derive_joined(*src, inputs, files, makes)) == "a\nb\nt\nu\n");
    CHECK(makes == 2);
  }
  SECTION("a file removed from an input") {
    tree.remove("p/1/gids/0");
    src->begin_pass();
    CHECK(text_of(derive_joined(*src, inputs, files, makes)) == "-b\nt\n");
    CHECK(makes == 2);
  }
  SECTION("a change elsewhere keeps it") {
    tree.write("p/1/state", "1: DOWN\n");
    tree.write("p/1/gids2/0", "y\n");  // a sibling whose name starts like an input's
    tree.write("p/2/gids/0", "z\n");
    src->begin_pass();
    CHECK(derive_joined(*src, inputs, files, makes).value == first.value);
    CHECK(makes == 1);
  }
  SECTION("a notification the cache cannot see itself") {
    src->invalidate("p/1");
    CHECK(derive_joined(*src, inputs, files, makes).value != first.value);
    CHECK(makes == 2);
  }
}

TEST_CASE("what is derived ends with the refresh period of the oldest value it was made from",
          "[cached_file_source]") {
  CacheTree tree;
  tree.write("p/1/gids/0", "a\n");
  tree.write("p/1/gids/1", "b\n");
  auto now = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  const auto src = make_cached_file_source(tree.root().string(), clocked_options(now));
  const std::vector<std::string> inputs = {"p/1/gids"};
  const std::vector<std::string> files = {"p/1/gids/0", "p/1/gids/1"};
  int makes = 0;

  src->begin_pass();
  REQUIRE(src->read_static("p/1/gids/0").ok());  // read 50 s before the table is made
  now += std::chrono::seconds(50);
  CHECK(derive_joined(*src, inputs, files, makes).age == std::chrono::seconds(50));
  now += std::chrono::seconds(9);
  CHECK(derive_joined(*src, inputs, files, makes).age == std::chrono::seconds(59));
  CHECK(makes == 1);
  now += std::chrono::seconds(2);  // gids/0 is 61 s old: made again, from a fresh read
  const Derived remade = derive_joined(*src, inputs, files, makes);
  CHECK(makes == 2);
  CHECK(remade.age == std::chrono::seconds(11));  // gids/1, read with the first table
}

/// A ChangeFeed the test tells what to announce.
struct ScriptedFeed final : ChangeFeed {
  bool pending = false;
  int asked = 0;
  std::string why;  ///< unavailable()
  bool changed() override {
    ++asked;
    return std::exchange(pending, false);
  }
  std::string unavailable() const override { return why; }
};

TEST_CASE("an announced value is kept for the announced period where inotify watches it",
          "[cached_file_source]") {
  CacheTree tree;
  tree.write("p/1/gids/0", "a\n");
  auto now = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  auto options = clocked_options(now);
  options.announced_refresh_period = std::chrono::minutes(10);
  const auto src = make_cached_file_source(tree.root().string(), options);
  const std::vector<std::string> inputs = {"p/1/gids"};
  const std::vector<std::string> files = {"p/1/gids/0"};
  int announced = 0;
  int unannounced = 0;
  const auto pass = [&] {
    src->begin_pass();
    derive_joined(*src, inputs, files, announced, Changes::announced);
    derive_joined(*src, {"p/1", "p/1/gids"}, files, unannounced);
  };
  pass();
  now += std::chrono::seconds(61);
  pass();
  CHECK(announced == 1);
  CHECK(unannounced == 2);  // the refresh period
  now += std::chrono::seconds(540);
  pass();
  CHECK(announced == 2);
  CHECK(src->stats().announcements_unavailable == "no feed");
  tree.write("p/1/gids/0", "b\n");  // inotify still ends it at once
  pass();
  CHECK(announced == 3);
}

TEST_CASE("a change announced forgets announced values at once and once more after settling",
          "[cached_file_source]") {
  CacheTree tree;
  tree.write("p/1/gids/0", "a\n");
  tree.write("d/fw_ver", "1\n");
  auto now = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  auto feed = std::make_shared<ScriptedFeed>();
  auto options = clocked_options(now);
  options.announcements = feed;
  options.announcement_settle = std::chrono::seconds(2);
  const auto src = make_cached_file_source(tree.root().string(), options);
  const std::vector<std::string> inputs = {"p/1/gids"};
  int announced = 0;
  int unannounced = 0;
  const auto pass = [&] {
    src->begin_pass();
    derive_joined(*src, inputs, {"p/1/gids/0"}, announced, Changes::announced);
    derive_joined(*src, {"d"}, {"d/fw_ver"}, unannounced);
    now += std::chrono::seconds(1);
  };
  pass();
  pass();
  CHECK(feed->asked == 2);
  CHECK(announced == 1);
  const auto opens = src->stats().opens;
  feed->pending = true;
  pass();  // at once: made again, from files read again (not from the kept values)
  CHECK(announced == 2);
  CHECK(src->stats().opens == opens + 1);
  pass();  // 1 s later: resting
  CHECK(announced == 2);
  pass();  // 2 s after the change: the kernel's work queue has run; made again
  CHECK(announced == 3);
  pass();
  pass();
  CHECK(announced == 3);
  CHECK(src->stats().announced_forgets == 2);
  CHECK(unannounced == 1);  // not announced: not forgotten

  SECTION("changes that keep coming forget at most once per settling time") {
    for (int i = 0; i < 6; ++i) {
      feed->pending = true;
      pass();
    }
    CHECK(announced == 6);  // at 0, 2 and 4 s of the six
    pass();                 // 1 s after the last change, 2 s after the last forget
    CHECK(announced == 7);
    pass();
    CHECK(announced == 7);
    pass();  // settled: 2 s after the last forget, 3 s after the last change
    CHECK(announced == 8);
    pass();
    pass();
    CHECK(announced == 8);
  }
}

TEST_CASE("a feed that cannot announce is never asked, and the cache says why",
          "[cached_file_source]") {
  CacheTree tree;
  tree.write("p/1/gids/0", "a\n");
  auto now = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  auto feed = std::make_shared<ScriptedFeed>();
  feed->why = "NETLINK_LISTEN_ALL_NSID: Operation not permitted";
  auto options = clocked_options(now);
  options.announcements = feed;
  const auto src = make_cached_file_source(tree.root().string(), options);
  int makes = 0;
  for (int pass = 0; pass < 3; ++pass) {
    feed->pending = true;
    src->begin_pass();
    derive_joined(*src, {"p/1/gids"}, {"p/1/gids/0"}, makes, Changes::announced);
    now += std::chrono::seconds(2);
  }
  CHECK(feed->asked == 0);
  CHECK(makes == 1);  // nothing forgotten for it
  CHECK(src->stats().announcements_unavailable == feed->why);
}

TEST_CASE("nothing is kept of a derivation that made nothing, nor by the plain source",
          "[cached_file_source]") {
  CacheTree tree;
  tree.write("p/1/gids/0", "a\n");
  const auto cached = make_cached_file_source(tree.root().string());
  const auto plain = make_directory_file_source(tree.root().string());
  const std::vector<std::string> inputs = {"p/1/gids"};
  int makes = 0;
  const auto vanished = [&] {
    ++makes;
    return Derived{};
  };
  cached->derive_static("p/1/gids", inputs, Changes::unannounced, vanished);
  cached->derive_static("p/1/gids", inputs, Changes::unannounced, vanished);
  CHECK(makes == 2);
  makes = 0;
  derive_joined(*plain, inputs, {"p/1/gids/0"}, makes);
  derive_joined(*plain, inputs, {"p/1/gids/0"}, makes);
  CHECK(makes == 2);
  // Under a directory that is not there (no watch, no sysfs), nothing is kept either.
  makes = 0;
  derive_joined(*cached, {"p/9/gids"}, {"p/9/gids/0"}, makes);
  derive_joined(*cached, {"p/9/gids"}, {"p/9/gids/0"}, makes);
  CHECK(makes == 2);
}

/// The mlx5 fixture host copied into a temporary tree (so that a test may change it) and
/// collected through the caching source.
struct CachedMlx5Host {
  CachedMlx5Host() {
    fs::copy(fs::path(RDMATOP_SOURCE_DIR) / "tests/fixtures/hosts/mlx5/sys", tree.root() / "sys",
             fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  }
  Snapshot collect(std::uint64_t seq) const {
    return collect_snapshot(CollectContext{*cached, *ethtool, DeviceFilter{}}, seq);
  }
  /// mlx5_0 of `snap`; fails the test without it.
  static DeviceSample mlx5_0(const Snapshot& snap) {
    for (const DeviceSample& device : snap.devices) {
      if (device.name == "mlx5_0") return device;
    }
    FAIL("no mlx5_0");
    throw;
  }

  CacheTree tree;
  std::unique_ptr<CachedFileSource> cached =
      make_cached_file_source((tree.root() / "sys").string());
  std::unique_ptr<EthtoolSource> ethtool =
      make_dump_ethtool_source((tree.root() / "no-ethtool").string());
};

TEST_CASE("a port's GID table is parsed once and its problems are reported at every pass",
          "[cached_file_source]") {
  CachedMlx5Host host;
  const std::string port = "sys/class/infiniband/mlx5_0/ports/1/";
  host.tree.write(port + "gids/6", "not a gid\n");
  const auto gids_of = [](const Snapshot& snap) {
    return CachedMlx5Host::mlx5_0(snap).ports.at(0).gids;
  };

  const Snapshot first = host.collect(1);
  const Snapshot second = host.collect(2);
  CHECK(host.cached->stats().derived_hits > 0);
  for (const Snapshot* snap : {&first, &second}) {
    const SourceStatus& status = test::status_of(*snap, "mlx5_0/1");
    CHECK(status.state == SourceState::error);
    CHECK_THAT(status.message, Catch::Contains("gids/6"));
  }
  REQUIRE(gids_of(second).size() == gids_of(first).size());
  CHECK(gids_of(second) == gids_of(first));

  // An address added: its slot filled in place, as the kernel's table changes under a watch.
  host.tree.write(port + "gids/6", "0000:0000:0000:0000:0000:ffff:0a00:0063\n");
  host.tree.write(port + "gid_attrs/types/6", "RoCE v2\n");
  host.tree.write(port + "gid_attrs/ndevs/6", "ens1f0np0\n");
  const Snapshot third = host.collect(3);
  CHECK(test::status_of(third, "mlx5_0/1").state == SourceState::ok);
  REQUIRE(gids_of(third).size() == gids_of(first).size() + 1);
  CHECK(gids_of(third).back().gid == "0000:0000:0000:0000:0000:ffff:0a00:0063");
  CHECK(gids_of(third).back().type == "RoCE v2");
}

TEST_CASE("a collection whose counter files are not read in batches says so",
          "[cached_file_source]") {
  const std::string sys = std::string(RDMATOP_SOURCE_DIR) + "/tests/fixtures/hosts/mlx5/sys";
  auto ethtool = make_dump_ethtool_source("/nonexistent");
  const auto file_reads = [](const Snapshot& s) {
    std::vector<SourceStatus> found;
    for (const auto& st : s.sources) {
      if (st.source == "file-reads") found.push_back(st);
    }
    return found;
  };
  FileCacheOptions off;
  off.batch_reads = false;
  const auto unbatched = make_cached_file_source(sys, off);
  const Snapshot slow = collect_snapshot(CollectContext{*unbatched, *ethtool, DeviceFilter{}}, 1);
  const auto said = file_reads(slow);
  REQUIRE(said.size() == 1);
  CHECK(said.front().state == SourceState::ok);  // the values are all there, read more slowly
  CHECK(said.front().message.find("batch_reads off") != std::string::npos);

  const auto batched = make_cached_file_source(sys);
  const Snapshot fast = collect_snapshot(CollectContext{*batched, *ethtool, DeviceFilter{}}, 1);
  const std::string reason = batched->stats().batch_unavailable;
  if (reason.empty()) {
    CHECK(file_reads(fast).empty());
  } else {
    WARN("io_uring is not available here (" << reason << "): the status must say so");
    REQUIRE(file_reads(fast).size() == 1);
    CHECK(file_reads(fast).front().message.find(reason) != std::string::npos);
  }
  // The plain source has no batches to fall back from.
  const auto plain = make_directory_file_source(sys);
  CHECK(file_reads(collect_snapshot(CollectContext{*plain, *ethtool, DeviceFilter{}}, 1)).empty());
}

TEST_CASE("an absent directory is kept as absent until it is created", "[cached_file_source]") {
  CacheTree tree;
  tree.write("device/vendor", "0x15b3\n");
  const auto src = make_cached_file_source(tree.root().string());
  src->begin_pass();
  CHECK(src->list_static("device/msi_irqs").error().code == ENOENT);
  const std::uint64_t listed = src->stats().listings;
  src->begin_pass();
  CHECK(src->list_static("device/msi_irqs").error().code == ENOENT);
  CHECK(src->stats().listings == listed);  // from memory

  tree.write("device/msi_irqs/42", "msix\n");
  src->begin_pass();
  const auto names = src->list_static("device/msi_irqs");
  REQUIRE(names.ok());
  CHECK(**names == std::vector<std::string>{"42"});
  CHECK(src->stats().listings == listed + 1);

  // And absent again once removed.
  tree.remove("device/msi_irqs");
  src->begin_pass();
  CHECK(src->list_static("device/msi_irqs").error().code == ENOENT);
}

TEST_CASE("a discovery listing is served from memory only while inotify reports its changes",
          "[cached_file_source]") {
  CacheTree tree;
  tree.write("class/infiniband/mlx5_0/fw_ver", "16.35.2000\n");
  const auto src = make_cached_file_source(tree.root().string());
  src->begin_pass();
  CHECK(src->list_current("class/infiniband").value() == std::vector<std::string>{"mlx5_0"});
  const std::uint64_t listed = src->stats().listings;
  src->begin_pass();
  CHECK(src->list_current("class/infiniband").value() == std::vector<std::string>{"mlx5_0"});
  CHECK(src->stats().listings == listed);  // from memory: the tree is watched

  tree.write("class/infiniband/mlx5_1/fw_ver", "16.35.2000\n");  // a device registered
  src->begin_pass();
  CHECK(src->list_current("class/infiniband").value() ==
        std::vector<std::string>{"mlx5_0", "mlx5_1"});
  CHECK(src->stats().listings == listed + 1);

  tree.remove("class/infiniband/mlx5_0");  // and one unregistered
  src->begin_pass();
  CHECK(src->list_current("class/infiniband").value() == std::vector<std::string>{"mlx5_1"});
}

TEST_CASE("a discovery listing on sysfs is read again every pass", "[cached_file_source]") {
  // sysfs sends no inotify events for kernfs directories: a listing there is never served from
  // memory, so a device registered between two ticks is seen at the next one.
  struct statfs st {};
  if (::statfs("/sys/class/net", &st) != 0 || st.f_type != SYSFS_MAGIC) {
    WARN("SKIPPED: /sys/class/net is not sysfs here; the sysfs listing path is not checked");
    return;
  }
  const auto src = make_cached_file_source("/sys");
  src->begin_pass();
  REQUIRE(src->list_current("class/net").ok());
  const std::uint64_t listed = src->stats().listings;
  src->begin_pass();
  REQUIRE(src->list_current("class/net").ok());
  CHECK(src->stats().listings == listed + 1);
}

TEST_CASE("a device's identity is parsed once, follows a firmware update and keeps its problems",
          "[cached_file_source]") {
  CachedMlx5Host host;
  const std::string device = "sys/class/infiniband/mlx5_0/";
  host.tree.write(device + "node_type", "garbage\n");
  const auto mlx5_0 = &CachedMlx5Host::mlx5_0;

  const Snapshot first = host.collect(1);
  const std::uint64_t made = host.cached->stats().derived_made;
  // A counter of the device rewritten in place: deeper than the identity's files, it stays.
  host.tree.write(device + "ports/1/hw_counters/out_of_buffer", "12345\n");
  const Snapshot second = host.collect(2);
  CHECK(host.cached->stats().derived_made == made);
  CHECK(mlx5_0(second).ports.at(0).hw_counters.find("out_of_buffer")->second == 12345);
  for (const Snapshot* snap : {&first, &second}) {
    const SourceStatus& status = test::status_of(*snap, "mlx5_0");
    CHECK(status.state == SourceState::error);
    CHECK_THAT(status.message, Catch::Contains("node_type"));
  }
  CHECK(mlx5_0(second).fw_ver == mlx5_0(first).fw_ver);
  CHECK(mlx5_0(second).driver == "mlx5");
  CHECK(!mlx5_0(second).pci_address.empty());

  host.tree.write(device + "fw_ver", "28.99.9999\n");  // the firmware updated in place
  host.tree.write(device + "node_type", "1: CA\n");
  const Snapshot third = host.collect(3);
  CHECK(host.cached->stats().derived_made == made + 1);
  CHECK(mlx5_0(third).fw_ver == "28.99.9999");
  CHECK(mlx5_0(third).node_type == "CA");
  CHECK(test::status_of(third, "mlx5_0").state == SourceState::ok);
}

}  // namespace
}  // namespace rdmatop
