// /proc/<pid>/limits (RLIMIT_MEMLOCK), /proc/<pid>/status (VmPin, CapEff, Cpus_allowed_list)
// and the kernel's CPU list format: real layouts, "unlimited", missing lines and garbage.
#include <catch2/catch.hpp>

#include <cerrno>
#include <string>
#include <vector>

#include "collector/parse/procfs_process_parse.h"

namespace rdmatop {
namespace {

// fs/proc/base.c proc_pid_limits: "%-25s %-20s %-20s %-10s\n" after a header of the same widths.
std::string limits(const std::string& soft, const std::string& hard,
                   const std::string& units = "bytes") {
  auto row = [](const std::string& name, const std::string& s, const std::string& h,
                const std::string& u) {
    auto pad = [](std::string v, std::size_t w) {
      v.resize(std::max(v.size(), w), ' ');
      return v;
    };
    return pad(name, 25) + " " + pad(s, 20) + " " + pad(h, 20) + " " + pad(u, 10) + "\n";
  };
  return row("Limit", "Soft Limit", "Hard Limit", "Units") +
         row("Max cpu time", "unlimited", "unlimited", "seconds") +
         row("Max processes", "63419", "63419", "processes") +
         row("Max locked memory", soft, hard, units) +
         row("Max address space", "unlimited", "unlimited", "bytes") +
         row("Max realtime timeout", "unlimited", "unlimited", "us");
}

const std::string kStatus =
    "Name:\tibv_rc_pingpong\n"
    "Umask:\t0022\n"
    "State:\tS (sleeping)\n"
    "Tgid:\t4242\n"  // a thread (Pid) of process 4242
    "Pid:\t4321\n"
    "VmLck:\t       0 kB\n"
    "VmPin:\t    8200 kB\n"
    "VmHWM:\t    9000 kB\n"
    "CapInh:\t0000000000000000\n"
    "CapPrm:\t000001ffffffffff\n"
    "CapEff:\t000001ffffffffff\n"
    "Cpus_allowed:\tff\n"
    "Cpus_allowed_list:\t0-3,6\n"
    "Mems_allowed_list:\t0\n";

}  // namespace

TEST_CASE("parse_proc_limits_memlock reads the soft and hard RLIMIT_MEMLOCK", "[procfs]") {
  struct Case {
    const char* name;
    std::string text;
    ResourceLimit expected;
  };
  const std::vector<Case> cases = {
      {"kernel default 8 MiB", limits("8388608", "8388608"), {8388608, 8388608}},
      {"unlimited", limits("unlimited", "unlimited"), {std::nullopt, std::nullopt}},
      {"soft below unlimited hard", limits("65536", "unlimited"), {65536, std::nullopt}},
      {"zero", limits("0", "0"), {0, 0}},
      {"largest",
       limits("18446744073709551615", "18446744073709551615"),
       {18446744073709551615ULL, 18446744073709551615ULL}},
      {"no trailing newline",
       "Limit Soft Limit Hard Limit Units\nMax locked memory 1024 2048 bytes",
       {1024, 2048}},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    auto r = parse_proc_limits_memlock(c.text);
    REQUIRE(r.ok());
    CHECK(*r == c.expected);
  }
}

TEST_CASE("parse_proc_limits_memlock rejects what it cannot read", "[procfs]") {
  const std::vector<std::pair<const char*, std::string>> cases = {
      {"empty", ""},
      {"no memlock row", "Limit Soft Limit Hard Limit Units\nMax cpu time unlimited unlimited s\n"},
      {"row name prefix only", "Max locked memoryX 1 1 bytes\n"},
      {"negative", limits("-1", "8388608")},
      {"overflow", limits("18446744073709551616", "1")},
      {"hex", limits("0x1000", "1")},
      {"other unit", limits("8192", "8192", "kB")},
      {"missing hard", "Max locked memory         8192                 bytes\n"},
      {"extra field", "Max locked memory 1 1 bytes extra\n"},
      {"garbage", std::string("\xff\xfe\0Max locked memory", 21)},
  };
  for (const auto& [name, text] : cases) {
    INFO(name);
    auto r = parse_proc_limits_memlock(text);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EPROTO);
  }
}

TEST_CASE("parse_proc_status reads Tgid, VmPin, CapEff and the allowed CPUs", "[procfs]") {
  auto r = parse_proc_status(kStatus);
  REQUIRE(r.ok());
  CHECK(r->tgid == 4242u);
  CHECK(r->pinned_bytes == 8200u * 1024u);
  CHECK(r->cap_effective == 0x1ffffffffffULL);
  CHECK(r->cpus == std::vector<std::uint32_t>{0, 1, 2, 3, 6});
  CHECK(((*r->cap_effective >> kCapIpcLock) & 1U) == 1U);
}

TEST_CASE("parse_proc_status: absent lines are absent fields", "[procfs]") {
  // A kernel thread has no mm, so no Vm* lines; an old kernel may lack Cpus_allowed_list.
  auto r = parse_proc_status("Name:\tkworker/0:1\nCapEff:\t0000000000000000\n");
  REQUIRE(r.ok());
  CHECK_FALSE(r->tgid);
  CHECK_FALSE(r->pinned_bytes);
  CHECK(r->cap_effective == 0u);
  CHECK_FALSE(r->cpus);
}

TEST_CASE("parse_proc_status rejects malformed fields and non-status text", "[procfs]") {
  const std::vector<std::pair<const char*, std::string>> cases = {
      {"empty", ""},
      {"no Name line", "VmPin:\t0 kB\n"},
      {"Tgid not a number", "Name:\tx\nTgid:\t12a\n"},
      {"Tgid above 32 bits", "Name:\tx\nTgid:\t4294967296\n"},
      {"VmPin without unit", "Name:\tx\nVmPin:\t12\n"},
      {"VmPin negative", "Name:\tx\nVmPin:\t-12 kB\n"},
      {"VmPin overflowing bytes", "Name:\tx\nVmPin:\t18446744073709551615 kB\n"},
      {"CapEff not hex", "Name:\tx\nCapEff:\tzzzz\n"},
      {"CapEff too wide", "Name:\tx\nCapEff:\t1ffffffffffffffff\n"},
      {"bad CPU list", "Name:\tx\nCpus_allowed_list:\t3-1\n"},
  };
  for (const auto& [name, text] : cases) {
    INFO(name);
    auto r = parse_proc_status(text);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EPROTO);
  }
}

TEST_CASE("parse_cpu_list reads the kernel's %*pbl format", "[procfs]") {
  struct Case {
    std::string text;
    std::vector<std::uint32_t> cpus;
  };
  const std::vector<Case> cases = {
      {"0\n", {0}}, {"0-3\n", {0, 1, 2, 3}}, {"0-1,4,6-7", {0, 1, 4, 6, 7}}, {"\n", {}},
      {"", {}},     {"8191", {8191}},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    auto r = parse_cpu_list(c.text);
    REQUIRE(r.ok());
    CHECK(*r == c.cpus);
  }
}

TEST_CASE("parse_cpu_list rejects malformed and unbounded lists", "[procfs]") {
  for (const std::string text : {"a", "1-", "-1", "3-1", "0,,1", "0,", "1,0", "0-2,2", "0 1",
                                 "8192", "0-4294967295", "4294967296", "0x1", "1-2-3"}) {
    INFO(text);
    auto r = parse_cpu_list(text);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EPROTO);
  }
}

TEST_CASE("procfs: /proc/<pid>/stat fields of the process self-metrics", "[procfs]") {
  // A real line (cat on Linux 6.x, read from /proc/self/stat), and the same with a command
  // name holding spaces and parentheses, which the kernel prints unescaped.
  const std::string rest =
      " R 25299 25299 2723 0 -1 4194304 98 0 0 0 7 3 0 0 20 0 1 0 1385787 3133440 388 "
      "18446744073709551615 94698471968768 94698471988649 140725840535872 0 0 0 0 0 0 0 0 0 17 "
      "0 0 0 0 0 0 94698472004656 94698472006272 94699354947584 140725840538242 "
      "140725840538262 140725840538262 140725840539627 0\n";
  for (const std::string comm : {"(cat)", "(tmux: server (1))"}) {
    const auto stat = parse_proc_stat("25302 " + comm + rest);
    REQUIRE(stat.ok());
    CHECK(stat->utime_ticks == 7);
    CHECK(stat->stime_ticks == 3);
    CHECK(stat->start_time_ticks == 1385787);
    CHECK(stat->vsize_bytes == 3133440);
    CHECK(stat->rss_pages == 388);
  }
  CHECK_FALSE(parse_proc_stat("25302 cat R 1 2 3").ok());
  CHECK_FALSE(parse_proc_stat("25302 (cat) R 1 2 3\n").ok());  // truncated
  std::string bad_utime = rest;
  bad_utime.replace(bad_utime.find(" 7 3 "), 5, " x 3 ");
  CHECK_FALSE(parse_proc_stat("25302 (cat)" + bad_utime).ok());
}

TEST_CASE("procfs: boot time from /proc/stat", "[procfs]") {
  const auto btime = parse_proc_stat_boot_time(
      "cpu  1 2 3 4 5 6 7 0 0 0\nintr 1 2\nctxt 3\nbtime 1764590000\nprocesses 9\n");
  REQUIRE(btime.ok());
  CHECK(*btime == 1764590000);
  CHECK_FALSE(parse_proc_stat_boot_time("cpu  1 2 3\n").ok());
  CHECK_FALSE(parse_proc_stat_boot_time("btime soon\n").ok());
}

}  // namespace rdmatop
