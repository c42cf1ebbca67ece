// collect_rdma_processes on recorded RDMA netlink replies (the replay source, so requests and
// parsing are the real ones) and an in-memory procfs/sysfs: owners per device, kernel users,
// and per-field degradation when a process exits or a file is closed to us.
#include <rdma/rdma_netlink.h>
#include <catch2/catch.hpp>

#include <cerrno>
#include <string>
#include <vector>

#include "collector/collect.h"
#include "tests/support/fake_file_source.h"
#include "tests/support/nldev_messages.h"
#include "tests/support/unsupported_ethtool_source.h"

namespace rdmatop {
namespace {

using testing::FakeFileSource;
using testing::Reply;
using testing::ResObject;

std::vector<std::uint8_t> dump(std::uint16_t cmd, std::uint16_t table, std::uint16_t entry,
                               std::uint16_t id, std::uint32_t dev, const std::string& name,
                               const std::vector<ResObject>& objects) {
  Reply r;
  if (!objects.empty())
    r.message(cmd, 0, testing::res_objects(table, entry, id, dev, name, objects));
  return r.done(0).bytes();
}

/// rxe0 (index 1): PID 100 holds 2 QPs, 2 CQs, 1 MR, 1 PD; ib_core holds QP 1, a CQ and a PD;
/// PID 200 holds one MR. mlx5_0 (index 2): PID 100 holds one QP; other dumps empty.
NetlinkRecording process_recording() {
  NetlinkRecording rec;
  rec[build_dev_get_request(0)] =
      Reply()
          .message(RDMA_NLDEV_CMD_GET, 0, testing::device(1, "rxe0", 1, 1))
          .message(RDMA_NLDEV_CMD_GET, 0, testing::device(2, "mlx5_0", 1, 2))
          .done(0)
          .bytes();
  const ResObject kern{1, 0, "ib_core"};
  rec[build_res_dump_request(NldevResKind::qp, 1, 0)] =
      dump(RDMA_NLDEV_CMD_RES_QP_GET, RDMA_NLDEV_ATTR_RES_QP, RDMA_NLDEV_ATTR_RES_QP_ENTRY,
           RDMA_NLDEV_ATTR_RES_LQPN, 1, "rxe0", {kern, {17, 100, ""}, {18, 100, ""}});
  rec[build_res_dump_request(NldevResKind::cq, 1, 0)] =
      dump(RDMA_NLDEV_CMD_RES_CQ_GET, RDMA_NLDEV_ATTR_RES_CQ, RDMA_NLDEV_ATTR_RES_CQ_ENTRY,
           RDMA_NLDEV_ATTR_RES_CQN, 1, "rxe0", {kern, {2, 100, ""}, {3, 100, ""}});
  rec[build_res_dump_request(NldevResKind::mr, 1, 0)] =
      dump(RDMA_NLDEV_CMD_RES_MR_GET, RDMA_NLDEV_ATTR_RES_MR, RDMA_NLDEV_ATTR_RES_MR_ENTRY,
           RDMA_NLDEV_ATTR_RES_MRN, 1, "rxe0", {{5, 100, ""}, {6, 200, ""}});
  rec[build_res_dump_request(NldevResKind::pd, 1, 0)] =
      dump(RDMA_NLDEV_CMD_RES_PD_GET, RDMA_NLDEV_ATTR_RES_PD, RDMA_NLDEV_ATTR_RES_PD_ENTRY,
           RDMA_NLDEV_ATTR_RES_PDN, 1, "rxe0", {kern, {2, 100, ""}});
  rec[build_res_dump_request(NldevResKind::qp, 2, 0)] =
      dump(RDMA_NLDEV_CMD_RES_QP_GET, RDMA_NLDEV_ATTR_RES_QP, RDMA_NLDEV_ATTR_RES_QP_ENTRY,
           RDMA_NLDEV_ATTR_RES_LQPN, 2, "mlx5_0", {{300, 100, ""}});
  for (const auto kind : {NldevResKind::cq, NldevResKind::mr, NldevResKind::pd}) {
    rec[build_res_dump_request(kind, 2, 0)] = Reply().done(0).bytes();
  }
  return rec;
}

std::string limits_text(const std::string& soft) {
  return "Limit                     Soft Limit           Hard Limit           Units     \n"
         "Max locked memory         " +
         soft + "              unlimited            bytes     \n";
}

/// Two NUMA nodes of 4 CPUs; PID 100 may run on CPUs 4-5 (node 1), PID 200 on all.
FakeFileSource sysfs_tree() {
  FakeFileSource fs;
  fs.file("devices/system/node/node0/cpulist", "0-3\n");
  fs.file("devices/system/node/node1/cpulist", "4-7\n");
  fs.file("devices/system/node/possible", "0-1\n");
  return fs;
}

FakeFileSource procfs_tree() {
  FakeFileSource fs;
  fs.file("100/comm", "ib_write_bw\n");
  fs.file("100/limits", limits_text("65536"));
  fs.file("100/status",
          "Name:\tib_write_bw\nVmPin:\t      64 kB\nCapEff:\t0000000000000000\n"
          "Cpus_allowed_list:\t4-5\n");
  fs.file("200/comm", "nvmet\n");
  fs.file("200/limits", limits_text("unlimited"));
  fs.file("200/status",
          "Name:\tnvmet\nVmPin:\t0 kB\nCapEff:\t0000000000004000\nCpus_allowed_list:\t0-7\n");
  return fs;
}

struct Run {
  Snapshot snap;
  ThreadProcesses threads;
  const RdmaProcess* find(std::uint32_t pid, const std::string& comm = "") const {
    for (const auto& p : snap.rdma_processes) {
      if (p.pid == pid && (comm.empty() || p.comm == comm)) return &p;
    }
    return nullptr;
  }
  const SourceStatus* status(const std::string& target) const {
    for (const auto& s : snap.sources) {
      if (s.source == "rdma-processes" && s.target == target) return &s;
    }
    return nullptr;
  }
};

Run run(NetlinkRecording rec, const FileSource* procfs, const FakeFileSource& sysfs,
        DeviceFilter filter = {}) {
  auto netlink = make_replay_rdma_netlink_source(std::move(rec));
  testing::UnsupportedEthtoolSource ethtool;
  CollectContext ctx{sysfs, ethtool, std::move(filter)};
  ctx.netlink = netlink.get();
  ctx.procfs = procfs;
  Run r;
  r.threads = collect_rdma_processes(ctx, r.snap, list_rdma_devices(ctx));
  return r;
}

}  // namespace

TEST_CASE("rdma processes: owners per device, with limits, pinned memory and NUMA nodes",
          "[collector][processes]") {
  const auto procfs = procfs_tree();
  const Run r = run(process_recording(), &procfs, sysfs_tree());
  REQUIRE(r.snap.rdma_processes.size() == 3);
  // Sorted by PID; the kernel user has PID 0 and is named like ps names kernel threads.
  CHECK(r.snap.rdma_processes[0].pid == 0);
  CHECK(r.snap.rdma_processes[1].pid == 100);
  CHECK(r.snap.rdma_processes[2].pid == 200);

  const RdmaProcess* kern = r.find(0, "[ib_core]");
  REQUIRE(kern != nullptr);
  CHECK(kern->qps == std::map<std::string, std::uint32_t, std::less<>>{{"rxe0", 1}});
  CHECK(kern->cqs.at("rxe0") == 1);
  CHECK(kern->mrs.empty());
  CHECK(kern->pds.at("rxe0") == 1);
  CHECK_FALSE(kern->memlock_soft_bytes);
  CHECK(kern->cpu_numa_nodes.empty());

  const RdmaProcess* app = r.find(100);
  REQUIRE(app != nullptr);
  CHECK(app->comm == "ib_write_bw");
  CHECK(app->qps == std::map<std::string, std::uint32_t, std::less<>>{{"mlx5_0", 1}, {"rxe0", 2}});
  CHECK(app->cqs.at("rxe0") == 2);
  CHECK(app->mrs.at("rxe0") == 1);
  CHECK(app->pds.at("rxe0") == 1);
  CHECK(app->memlock_soft_bytes == 65536u);
  CHECK_FALSE(app->memlock_unlimited);
  CHECK(app->pinned_bytes == 64u * 1024u);
  CHECK(app->cap_ipc_lock == false);
  CHECK(app->cpu_numa_nodes == std::vector<std::int32_t>{1});

  const RdmaProcess* nvmet = r.find(200);
  REQUIRE(nvmet != nullptr);
  CHECK(nvmet->qps.empty());
  CHECK(nvmet->mrs.at("rxe0") == 1);
  CHECK_FALSE(nvmet->memlock_soft_bytes);
  CHECK(nvmet->memlock_unlimited);
  CHECK(nvmet->cap_ipc_lock == true);
  CHECK(nvmet->cpu_numa_nodes == std::vector<std::int32_t>{0, 1});

  for (const char* target : {"", "rxe0", "mlx5_0"}) {
    INFO(target);
    const SourceStatus* s = r.status(target);
    REQUIRE(s != nullptr);
    CHECK(s->state == SourceState::ok);
    CHECK(s->message.empty());
  }
}

TEST_CASE("rdma processes: the device filter applies to the dumps", "[collector][processes]") {
  const auto procfs = procfs_tree();
  const Run r = run(process_recording(), &procfs, sysfs_tree(), DeviceFilter{{"mlx5_0"}, {}});
  REQUIRE(r.snap.rdma_processes.size() == 1);
  CHECK(r.snap.rdma_processes[0].qps ==
        std::map<std::string, std::uint32_t, std::less<>>{{"mlx5_0", 1}});
  CHECK(r.status("rxe0") == nullptr);
}

TEST_CASE("rdma processes: a vanished process and closed files degrade per field",
          "[collector][processes]") {
  FakeFileSource procfs;  // PID 100 exited after the dump: nothing of it is left
  procfs.file("200/comm", "nvmet\n");
  procfs.file("200/limits", "garbage\n");
  procfs.file("200/status", "Name:\tnvmet\nVmPin:\t0 kB\n");
  procfs.fail("200/status", EACCES);
  const Run r = run(process_recording(), &procfs, FakeFileSource());
  const RdmaProcess* gone = r.find(100);
  REQUIRE(gone != nullptr);  // its objects still count: the kernel had them at the dump
  CHECK(gone->qps.at("rxe0") == 2);
  CHECK(gone->comm.empty());
  CHECK_FALSE(gone->memlock_soft_bytes);
  CHECK_FALSE(gone->memlock_unlimited);
  const RdmaProcess* closed = r.find(200);
  REQUIRE(closed != nullptr);
  CHECK(closed->comm == "nvmet");
  CHECK_FALSE(closed->memlock_soft_bytes);
  CHECK_FALSE(closed->pinned_bytes);
  CHECK_FALSE(closed->cap_ipc_lock);
  CHECK(closed->cpu_numa_nodes.empty());  // no NUMA nodes in this sysfs either

  const SourceStatus* host = r.status("");
  REQUIRE(host != nullptr);
  CHECK(host->state == SourceState::ok);
  CHECK(host->message.find("comm: process exited (1 process)") != std::string::npos);
  CHECK(host->message.find("status: permission denied (1 process)") != std::string::npos);
  CHECK(host->message.find("limits: /proc/<pid>/limits") != std::string::npos);
}

TEST_CASE("rdma processes: a kernel without a dump is noted, other failures are errors",
          "[collector][processes]") {
  auto rec = process_recording();
  rec[build_res_dump_request(NldevResKind::pd, 1, 0)] = Reply().error(0, -EINVAL).bytes();
  rec[build_res_dump_request(NldevResKind::mr, 2, 0)] = Reply().error(0, -EPERM).bytes();
  const auto procfs = procfs_tree();
  const Run r = run(rec, &procfs, sysfs_tree());
  const SourceStatus* rxe = r.status("rxe0");
  REQUIRE(rxe != nullptr);
  CHECK(rxe->state == SourceState::ok);
  CHECK(rxe->message.find("not supported by this kernel: RDMA_NLDEV_CMD_RES_PD_GET") !=
        std::string::npos);
  const SourceStatus* mlx5 = r.status("mlx5_0");
  REQUIRE(mlx5 != nullptr);
  CHECK(mlx5->state == SourceState::error);
  CHECK(mlx5->message.find("RDMA_NLDEV_CMD_RES_MR_GET") != std::string::npos);
  // The dumps that worked still count.
  const RdmaProcess* app = r.find(100);
  REQUIRE(app != nullptr);
  CHECK(app->qps.at("mlx5_0") == 1);
  CHECK(app->pds.empty());
}

TEST_CASE("rdma processes: without procfs only the owners, without netlink nothing",
          "[collector][processes]") {
  const Run r = run(process_recording(), nullptr, sysfs_tree());
  REQUIRE(r.snap.rdma_processes.size() == 3);
  CHECK(r.find(100)->comm.empty());
  REQUIRE(r.status("") != nullptr);
  CHECK(r.status("")->message == "names, limits and CPUs not read: no procfs root");

  const auto sysfs = sysfs_tree();
  testing::UnsupportedEthtoolSource ethtool;
  const CollectContext ctx{sysfs, ethtool, {}};
  Snapshot snap;
  collect_rdma_processes(ctx, snap, list_rdma_devices(ctx));
  CHECK(snap.rdma_processes.empty());
  CHECK(snap.sources.empty());
}

TEST_CASE("rdma processes: no RDMA netlink is no data, not an error", "[collector][processes]") {
  const Run r = run(NetlinkRecording{}, nullptr, sysfs_tree());
  CHECK(r.snap.rdma_processes.empty());
  REQUIRE(r.status("") != nullptr);
  CHECK(r.status("")->state == SourceState::no_data);
}

}  // namespace rdmatop

namespace rdmatop {
namespace {

/// rxe0 only: PID 100 holds a QP and thread 101 of it another QP and an MR; thread 301 of
/// process 300, which holds nothing itself, holds a QP. The kernel names the creating thread.
NetlinkRecording threaded_recording() {
  NetlinkRecording rec;
  rec[build_dev_get_request(0)] =
      Reply().message(RDMA_NLDEV_CMD_GET, 0, testing::device(1, "rxe0", 1, 1)).done(0).bytes();
  rec[build_res_dump_request(NldevResKind::qp, 1, 0)] =
      dump(RDMA_NLDEV_CMD_RES_QP_GET, RDMA_NLDEV_ATTR_RES_QP, RDMA_NLDEV_ATTR_RES_QP_ENTRY,
           RDMA_NLDEV_ATTR_RES_LQPN, 1, "rxe0", {{17, 100, ""}, {18, 101, ""}, {19, 301, ""}});
  rec[build_res_dump_request(NldevResKind::mr, 1, 0)] =
      dump(RDMA_NLDEV_CMD_RES_MR_GET, RDMA_NLDEV_ATTR_RES_MR, RDMA_NLDEV_ATTR_RES_MR_ENTRY,
           RDMA_NLDEV_ATTR_RES_MRN, 1, "rxe0", {{5, 101, ""}});
  for (const auto kind : {NldevResKind::cq, NldevResKind::pd}) {
    rec[build_res_dump_request(kind, 1, 0)] = Reply().done(0).bytes();
  }
  return rec;
}

void process_files(FakeFileSource& fs, std::uint32_t tid, std::uint32_t tgid,
                   const std::string& comm, const std::string& cpus) {
  const std::string dir = std::to_string(tid) + "/";
  fs.file(dir + "comm", comm + "\n");
  fs.file(dir + "limits", limits_text("65536"));
  fs.file(dir + "status", "Name:\t" + comm + "\nTgid:\t" + std::to_string(tgid) +
                              "\nVmPin:\t4 kB\nCapEff:\t0000000000000000\nCpus_allowed_list:\t" +
                              cpus + "\n");
}

}  // namespace

TEST_CASE("rdma processes: objects of a thread count for its process", "[collector][processes]") {
  FakeFileSource procfs;
  process_files(procfs, 100, 100, "trainer", "0-1");
  process_files(procfs, 101, 100, "proxy", "4");
  process_files(procfs, 300, 300, "storage", "0");
  process_files(procfs, 301, 300, "rdma-worker", "5");
  const Run r = run(threaded_recording(), &procfs, sysfs_tree());
  REQUIRE(r.snap.rdma_processes.size() == 2);
  CHECK(r.find(101) == nullptr);
  CHECK(r.find(301) == nullptr);
  CHECK(r.threads == ThreadProcesses{{101, 100}, {301, 300}});

  const RdmaProcess* trainer = r.find(100);
  REQUIRE(trainer != nullptr);
  CHECK(trainer->comm == "trainer");
  CHECK(trainer->qps == std::map<std::string, std::uint32_t, std::less<>>{{"rxe0", 2}});
  CHECK(trainer->mrs.at("rxe0") == 1);
  CHECK(trainer->memlock_soft_bytes == 65536u);
  // The main thread may run on node 0, the proxy thread on node 1.
  CHECK(trainer->cpu_numa_nodes == std::vector<std::int32_t>{0, 1});

  // Named after the process, not the thread; its CPUs are those of the thread holding objects.
  const RdmaProcess* storage = r.find(300);
  REQUIRE(storage != nullptr);
  CHECK(storage->comm == "storage");
  CHECK(storage->qps.at("rxe0") == 1);
  CHECK(storage->pinned_bytes == 4096u);
  CHECK(storage->cpu_numa_nodes == std::vector<std::int32_t>{1});
  CHECK(r.status("")->message.empty());
}

TEST_CASE("rdma processes: a thread whose status is unreadable stays under its own ID",
          "[collector][processes]") {
  FakeFileSource procfs;
  process_files(procfs, 100, 100, "trainer", "0-1");
  process_files(procfs, 101, 100, "proxy", "4");
  procfs.fail("101/status", EACCES);
  const Run r = run(threaded_recording(), &procfs, sysfs_tree());
  REQUIRE(r.find(101) != nullptr);
  CHECK(r.threads.empty());
  CHECK(r.find(101)->qps.at("rxe0") == 1);
  CHECK(r.find(100)->qps.at("rxe0") == 1);
  CHECK(r.status("")->message.find("status: permission denied") != std::string::npos);
}

}  // namespace rdmatop
