// Table tests of the capture format parsers (collector/capture/): real pasted outputs, each
// with where it was pasted, and the hostile shapes operators' pastes take (prompts, grep
// command lines, wrapped lines, CRLF, ANSI colours, a cut last line, two hosts in one file).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "collector/capture/capture_host.h"
#include "collector/capture/capture_text.h"
#include "tests/support/capture_read.h"

using namespace rdmatop;
using namespace rdmatop::capture;

namespace {

using Read = capture_test::CaptureRead;

Read read(const std::string& text) {
  return capture_test::read_capture(text);
}

std::string port_file(const Facts& f, const std::string& dev, std::uint32_t port,
                      const std::string& file) {
  return capture_test::capture_port_file(f, dev, port, file);
}

std::string dev_file(const Facts& f, const std::string& dev, const std::string& file) {
  const auto d = f.devices.find(dev);
  if (d == f.devices.end()) return "<no device>";
  const auto it = d->second.files.find(file);
  return it == d->second.files.end() ? "<absent>" : it->second;
}

std::string port_netdev(const Facts& f, const std::string& dev, std::uint32_t port) {
  const auto d = f.devices.find(dev);
  if (d == f.devices.end()) return "<no device>";
  const auto p = d->second.ports.find(port);
  return p == d->second.ports.end() ? "<no port>" : p->second.netdev;
}

std::optional<std::uint64_t> ethtool(const Facts& f, const std::string& netdev,
                                     const std::string& name) {
  const auto n = f.netdevs.find(netdev);
  if (n == f.netdevs.end() || !n->second.ethtool) return std::nullopt;
  const auto it = n->second.ethtool->find(name);
  if (it == n->second.ethtool->end()) return std::nullopt;
  return it->second;
}

void check_accounting(const FileReport& r) {
  capture_test::check_capture_accounting(r);
}

}  // namespace

TEST_CASE("capture text: prompts, bare commands and banners", "[capture]") {
  struct Case {
    const char* line;
    const char* host;
    const char* cwd;
    const char* command;  // nullptr: not a prompt
  };
  const Case cases[] = {
      // deepseek-ai/3FS#263
      {"root@node102:~/3FS# ip addr", "node102", "~/3FS", "ip addr"},
      // gpud#943: a prompt whose directory the find-cat dump is relative to
      {"/sys/class/infiniband/mlx5_1/ports/1/counters$ for file in $(find . -type f); do", "",
       "/sys/class/infiniband/mlx5_1/ports/1/counters", "for file in $(find . -type f); do"},
      // Mellanox/k8s-rdma-sriov-dev-plugin#30 (Fedora/RHEL prompt)
      {"[root@rdma-test-wv8kj tmp]# show_gids ", "rdma-test-wv8kj", "tmp", "show_gids"},
      // openucx/ucx#2534
      {"$ ibdev2netdev ", "", "", "ibdev2netdev"},
      // microsoft/mscclpp#493
      {"/export/home/me/mscclpp# ibstat", "", "/export/home/me/mscclpp", "ibstat"},
      {"# ethtool -S enp178s0f0 | grep prio", "", "", "ethtool -S enp178s0f0 | grep prio"},
      // isc-projects/ethq#8: a Markdown heading, not a root prompt
      {"# ethtool -S output", nullptr, nullptr, nullptr},
      {"# a comment", nullptr, nullptr, nullptr},
      // value lines are never prompts
      {"/sys/class/infiniband/mlx5_0/ports/1/hw_counters/lifespan:12", nullptr, nullptr, nullptr},
      {"     rx_prio0_bytes: 88178050405854", nullptr, nullptr, nullptr},
  };
  for (const Case& c : cases) {
    INFO(c.line);
    const auto p = parse_prompt(c.line);
    if (c.command == nullptr) {
      CHECK_FALSE(p.has_value());
      continue;
    }
    REQUIRE(p.has_value());
    CHECK(p->host == c.host);
    CHECK(p->cwd == c.cwd);
    CHECK(p->command == c.command);
  }
  // bytedance/byteps#179: the command in Markdown backticks; sonic-buildimage#21891: sudo.
  CHECK(parse_bare_command("`ethtool -S enp178s0f0 |grep prio`") ==
        std::optional<std::string>("ethtool -S enp178s0f0 |grep prio"));
  CHECK(parse_bare_command("sudo rdma statistic") == std::optional<std::string>("rdma statistic"));
  CHECK_FALSE(parse_bare_command("link mlx5_7/1 state ACTIVE").has_value());
  CHECK(parse_banner("=== ./port_xmit_wait ===") == std::optional<std::string>("./port_xmit_wait"));
  CHECK(parse_banner("==> /sys/class/net/eth0/mtu <==") ==
        std::optional<std::string>("/sys/class/net/eth0/mtu"));
}

TEST_CASE("capture text: CRLF, ANSI colours and a cut last line are cleaned", "[capture]") {
  // GNU grep --color=always with the default GREP_COLORS (grep(1): fn=35, se=36, "\33[K").
  const auto lines = clean_lines(
      "\x1b[35m\x1b[K/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent\x1b[m\x1b[K"
      "\x1b[36m\x1b[K:\x1b[m\x1b[K1333\r\nlast line without newline");
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].text == "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent:1333");
  CHECK(lines[1].text == "last line without newline");
  CHECK(lines[1].number == 2);
}

TEST_CASE("capture formats: real pastes", "[capture]") {
  SECTION("ethtool -S grep fragment in backticks and a fence (bytedance/byteps#179)") {
    const auto r = read(
        "`ethtool -S enp178s0f0 |grep prio`\n```\n     rx_prio0_bytes: 88178050405854\n"
        "     rx_prio0_packets: 420006709813\n     tx_prio3_packets: 0\n```\n");
    CHECK(r.report.formats == std::vector<std::string>{"ethtool -S"});
    CHECK(ethtool(r.facts, "enp178s0f0", "rx_prio0_bytes") == 88178050405854ULL);
    CHECK(ethtool(r.facts, "enp178s0f0", "tx_prio3_packets") == 0ULL);
    CHECK(r.report.log.used == 3);
    check_accounting(r.report);
  }
  SECTION("ethtool -S whole, Markdown heading, cut last line (isc-projects/ethq#8)") {
    const auto r = read(
        "# ethtool -S output\n\n```\nNIC statistics:\n     rx_packets: 845320277\n"
        "     tx_queue_stopped: 0\n     tx");
    CHECK(r.report.formats == std::vector<std::string>{"ethtool -S"});
    // The heading names no interface and no other paste names one: the counters are not
    // invented onto a netdev, and the file says so.
    CHECK(r.facts.netdevs.empty());
    CHECK_FALSE(r.facts.unnamed_ethtool.has_value());
    REQUIRE(r.report.notes.size() == 1);
    CHECK(r.report.notes[0].find("names no interface") != std::string::npos);
    CHECK(r.report.log.used == 3);  // the header and the two counters
    CHECK(r.report.log.ignored.at("no value (line cut)") == 1);
    check_accounting(r.report);
  }
  SECTION("grep command lines inside an ethtool paste (sos report, ryran/xsos#112)") {
    const auto r = read(
        "$ grep pause sos_commands/networking/ethtool_-S_eth1\n     rx_pause_frames: 95331\n"
        "     rx_constant_pause_events: 0\n     tx_pause_frames: 0\n"
        "$ grep prio0 sos_commands/networking/ethtool_-S_eth1\n     rx_prio0_bytes: 12\n");
    CHECK(ethtool(r.facts, "eth1", "rx_pause_frames") == 95331ULL);
    CHECK(ethtool(r.facts, "eth1", "rx_prio0_bytes") == 12ULL);
    CHECK(r.report.log.ignored.at("command line") == 2);
    check_accounting(r.report);
  }
  SECTION("ethtool -i (isc-projects/ethq#8, under the thread's interface name)") {
    const auto r = read(
        "# ethtool -i p3p1\ndriver: mlx5_core\nversion: 5.0-0\n"
        "firmware-version: 14.23.1020 (MT_2420110034)\nexpansion-rom-version:\n"
        "bus-info: 0000:af:00.0\nsupports-statistics: yes\n");
    REQUIRE(r.facts.netdevs.contains("p3p1"));
    const auto& info = r.facts.netdevs.at("p3p1").driver;
    REQUIRE(info.has_value());
    CHECK(info->driver == "mlx5_core");
    CHECK(info->fw_version == "14.23.1020 (MT_2420110034)");
    CHECK(info->bus_info == "0000:af:00.0");
  }
  SECTION("ethtool -a as ethtool.c dump_pause prints it") {
    const auto r = read(
        "# ethtool -a ens1f0np0\nPause parameters for ens1f0np0:\nAutonegotiate:\toff\n"
        "RX:\t\ton\nTX:\t\toff\n");
    CHECK(r.report.formats == std::vector<std::string>{"ethtool -a"});
    const auto& pause = r.facts.netdevs.at("ens1f0np0").pause;
    REQUIRE(pause.has_value());
    CHECK(pause->autoneg == false);
    CHECK(pause->rx == true);
    CHECK(pause->tx == false);
  }
  SECTION("grep \"\" hw_counters (bytedance/byteps#179)") {
    const auto r = read(
        "`grep \"\" /sys/class/infiniband/mlx5_0/ports/1/hw_counters/*`\n```\n"
        "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/lifespan:12\n"
        "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/local_ack_timeout_err:2705\n```\n");
    CHECK(r.report.formats == std::vector<std::string>{"sysfs values"});
    CHECK(port_file(r.facts, "mlx5_0", 1, "hw_counters/local_ack_timeout_err") == "2705");
    CHECK(port_file(r.facts, "mlx5_0", 1, "hw_counters/lifespan") == "12");
  }
  SECTION("find-cat banners relative to the prompt's directory (leptonai/gpud#943)") {
    const auto r = read(
        "```\n/sys/class/infiniband/mlx5_1/ports/1/counters$ for file in $(find . -type f); do\n"
        "    echo \"=== $file ===\"\n    cat \"$file\"\n    echo\ndone\n"
        "=== ./port_xmit_wait ===\n4294967295\n\n=== ./link_downed ===\n255\n\n```\n");
    CHECK(port_file(r.facts, "mlx5_1", 1, "counters/port_xmit_wait") == "4294967295");
    CHECK(port_file(r.facts, "mlx5_1", 1, "counters/link_downed") == "255");
    CHECK(r.report.log.ignored.at("command line") == 5);
    check_accounting(r.report);
  }
  SECTION("tail -n +1 banners") {
    // The layout of tail(1) with several files ("==> name <=="), values of leptonai/gpud#943.
    const auto r = read(
        "# tail -n +1 /sys/class/infiniband/mlx5_1/ports/1/counters/*\n"
        "==> /sys/class/infiniband/mlx5_1/ports/1/counters/link_downed <==\n255\n\n"
        "==> /sys/class/infiniband/mlx5_1/ports/1/counters/symbol_error <==\n0\n");
    CHECK(port_file(r.facts, "mlx5_1", 1, "counters/link_downed") == "255");
    CHECK(port_file(r.facts, "mlx5_1", 1, "counters/symbol_error") == "0");
  }
  SECTION("cd + printf loop, cut at a name (netdata/netdata#9091)") {
    const auto r = read(
        "cd /sys/class/infiniband/hfi1_0/ports/1/hw_counters\n"
        "for i in *; do printf \"%-20.20s  %s\\n\" \"$i\" \"$(<$i)\"; done\n"
        "DmaWait               50646\nlifespan              10\nRcvHdrOvr24");
    CHECK(port_file(r.facts, "hfi1_0", 1, "hw_counters/DmaWait") == "50646");
    CHECK(port_file(r.facts, "hfi1_0", 1, "hw_counters/RcvHdrOvr24") == "<absent>");
    CHECK(r.report.log.ignored.at("no value (line cut)") == 1);
    check_accounting(r.report);
  }
  SECTION("ttar with EOF and Directory entries (prometheus/procfs fixtures.ttar)") {
    const auto r = read(
        "# ttar - - - - - -\nDirectory: sys/class/infiniband/i40iw0\nMode: 755\n"
        "# ttar - - - - - -\nPath: sys/class/infiniband/i40iw0/fw_ver\nLines: 1\n0.2\nMode: 644\n"
        "# ttar - - - - - -\nPath: sys/class/infiniband/i40iw0/ports/1/counters/VL15_dropped\n"
        "Lines: 1\nN/A (no PMA)\nMode: 644\n");
    CHECK(r.report.formats == std::vector<std::string>{"ttar"});
    CHECK(dev_file(r.facts, "i40iw0", "fw_ver") == "0.2");
    CHECK(port_file(r.facts, "i40iw0", 1, "counters/VL15_dropped") == "N/A (no PMA)");
    check_accounting(r.report);
  }
  SECTION("rdma statistic, wrapped and cut mid-name (sonic-net/sonic-buildimage#21891)") {
    const auto r = read(
        "Receiver side:\n```bash\nsudo rdma statistic\nlink mlx5_0/1 rx_write_requests 0 "
        "rx_read_requests 0 out_of_buffer 1543 out_of_sequence 0\n duplicate_request 0 "
        "rnr_nak_retry_err 0 packet_seq_err 0 implied_\n");
    CHECK(r.report.formats == std::vector<std::string>{"rdma statistic"});
    CHECK(port_file(r.facts, "mlx5_0", 1, "hw_counters/out_of_buffer") == "1543");
    CHECK(port_file(r.facts, "mlx5_0", 1, "hw_counters/packet_seq_err") == "0");
    CHECK(port_file(r.facts, "mlx5_0", 1, "hw_counters/implied_") == "<absent>");
  }
  SECTION("rdma link, InfiniBand (ROCm/rccl#1423) and RoCE with netdev (openucx/ucx#11048)") {
    const auto ib = read(
        "link mlx5_7/1 subnet_prefix fe80:0000:0000:0000 lid 3403 sm_lid 1 lmc 0 state DOWN "
        "physical_state POLLING\n");
    CHECK(port_file(ib.facts, "mlx5_7", 1, "state") == "1: DOWN");
    CHECK(port_file(ib.facts, "mlx5_7", 1, "phys_state") == "2: Polling");
    CHECK(port_file(ib.facts, "mlx5_7", 1, "link_layer") == "InfiniBand");
    const auto roce = read(
        "rdma link show\nlink bnxt_re0/1 state ACTIVE physical_state LINK_UP netdev "
        "enp194s0f0np0 \nlink bnxt_re1/1 state DOWN physical_state DISABLED netdev "
        "enp194s0f1np1 \n");
    CHECK(port_file(roce.facts, "bnxt_re1", 1, "phys_state") == "3: Disabled");
    CHECK(port_netdev(roce.facts, "bnxt_re0", 1) == "enp194s0f0np0");
    CHECK(port_file(roce.facts, "bnxt_re0", 1, "link_layer") == "<absent>");
  }
  SECTION("rdma dev (openucx/ucx#11048)") {
    const auto r = read(
        "rdma dev\n0: bnxt_re0: node_type ca protocol roce fw 231.0.154.0 node_guid "
        "8e84:74ff:fe1f:2550 sys_image_guid 8e84:74ff:fe1f:2550 \n");
    CHECK(dev_file(r.facts, "bnxt_re0", "node_type") == "1: CA");
    CHECK(dev_file(r.facts, "bnxt_re0", "fw_ver") == "231.0.154.0");
    CHECK(dev_file(r.facts, "bnxt_re0", "node_guid") == "8e84:74ff:fe1f:2550");
  }
  SECTION("ibstat with CRLF and an elided GUID (Mellanox/network-operator#249, gpud#482)") {
    const auto r = read(
        "root@test-sriov-ib-pod:~# ibstat mlx5_7\r\nCA 'mlx5_7'\r\n        CA type: MT4124\r\n"
        "        Firmware version: 20.28.4000\r\n        Node GUID: 0x9aecdde4e1e642ba\r\n"
        "        System image GUID: ...\r\n        Port 1:\r\n                State: Down\r\n"
        "                Physical state: LinkUp\r\n                Rate: 200\r\n"
        "                Link layer: InfiniBand\r\n");
    CHECK(r.report.formats == std::vector<std::string>{"ibstat"});
    CHECK(dev_file(r.facts, "mlx5_7", "hca_type") == "MT4124");
    CHECK(dev_file(r.facts, "mlx5_7", "node_guid") == "9aec:dde4:e1e6:42ba");
    CHECK(dev_file(r.facts, "mlx5_7", "sys_image_guid") == "<absent>");
    CHECK(port_file(r.facts, "mlx5_7", 1, "state") == "1: DOWN");
    CHECK(port_file(r.facts, "mlx5_7", 1, "phys_state") == "5: LinkUp");
    CHECK(port_file(r.facts, "mlx5_7", 1, "rate") == "<absent>");  // no width: not rendered
    CHECK(r.report.log.ignored.at("value elided by the poster") == 1);
    check_accounting(r.report);
  }
  SECTION("ibv_devinfo, tabs (openucx/ucx#2534) and -v (Mellanox/k8s-rdma-shared-dev-plugin#164)") {
    const auto r = read(
        "$ ibv_devinfo \nhca_id:\tmlx5_3\n\tfw_ver:\t\t\t\t14.17.1010\n\tphys_port_cnt:\t\t\t1\n"
        "\tDevice ports:\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_DOWN (1)\n"
        "\t\t\tlink_layer:\t\tEthernet\n");
    CHECK(r.report.formats == std::vector<std::string>{"ibv_devinfo"});
    CHECK(dev_file(r.facts, "mlx5_3", "fw_ver") == "14.17.1010");
    CHECK(port_file(r.facts, "mlx5_3", 1, "state") == "1: DOWN");
    CHECK(port_file(r.facts, "mlx5_3", 1, "link_layer") == "Ethernet");
    const auto v = read(
        "hca_id:\tmlx5_0\n                port:   1\n"
        "                        state:                  PORT_ACTIVE (4)\n"
        "                        active_speed:           25.0 Gbps (32)\n"
        "                        phys_state:             LINK_UP (5)\n"
        "                        **GID[ 14]:               "
        "0000:0000:0000:0000:0000:ffff:c0a8:0606\n");
    CHECK(port_file(v.facts, "mlx5_0", 1, "phys_state") == "5: LinkUp");
    CHECK(port_file(v.facts, "mlx5_0", 1, "state") == "4: ACTIVE");
  }
  SECTION("ibdev2netdev | column -t with comments (imbue-ai/cluster-health#4)") {
    const auto r = read(
        "```\n$ ibdev2netdev | column -t\n"
        "mlx5_0   port  1  ==>  ibp26s0        (Down)  # CX-7 1/8 infiniband\n"
        "mlx5_1   port  1  ==>  enp27s0f0np0   (Up)    # CX-6 2/2 *ethernet* port 1/2\n```\n");
    CHECK(port_netdev(r.facts, "mlx5_1", 1) == "enp27s0f0np0");
    CHECK(r.facts.netdevs.at("enp27s0f0np0").files.at("operstate") == "up");
    CHECK(r.facts.netdevs.at("ibp26s0").files.at("operstate") == "down");
  }
  SECTION("ip addr with colours (deepseek-ai/3FS#263; colour codes of `ip -c`)") {
    const auto r = read(
        "3: \x1b[36mp1p1: \x1b[0m<BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc fq_codel "
        "state \x1b[32mUP \x1b[0mgroup default qlen 1000\n"
        "    link/ether \x1b[33m08:00:27:36:f4:fc\x1b[0m brd ff:ff:ff:ff:ff:ff\n");
    CHECK(r.report.formats == std::vector<std::string>{"ip link"});
    const auto& files = r.facts.netdevs.at("p1p1").files;
    CHECK(files.at("mtu") == "1500");
    CHECK(files.at("operstate") == "up");
    CHECK(files.at("address") == "08:00:27:36:f4:fc");
  }
  SECTION("ls -lR /sys/class/infiniband (prometheus/node_exporter#2846)") {
    const auto r = read(
        "~$ ls -lR /sys/class/infiniband\n/sys/class/infiniband:\ntotal 0\n"
        "lrwxrwxrwx. 1 root root 0 Nov  1 15:37 irdma0 -> ../../devices/pci0000:17/0000:17:00.0/"
        "0000:18:00.0/0000:19:03.0/0000:1a:00.0/infiniband/irdma0\n");
    CHECK(r.facts.devices.at("irdma0").class_link ==
          "../../devices/pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:03.0/0000:1a:00.0/"
          "infiniband/irdma0");
    check_accounting(r.report);
  }
  SECTION("show_gids, tab-separated (NVIDIA/nccl#1573) and space-separated (openucx/ucx#9484)") {
    const auto tabs = read(
        "root@test-macvlan-pod-2:/# show_gids \nDEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n"
        "---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n"
        "mlx5_0\t1\t4\tfe80:0000:0000:0000:a4ed:ccff:fe8b:1994\t\t\tv1\tnet1\n"
        "mlx5_0\t1\t7\t0000:0000:0000:0000:0000:ffff:0a98:000c\t10.152.0.12  \tv2\tnet1\n");
    CHECK(tabs.report.formats == std::vector<std::string>{"show_gids"});
    CHECK(port_file(tabs.facts, "mlx5_0", 1, "gids/7") ==
          "0000:0000:0000:0000:0000:ffff:0a98:000c");
    CHECK(port_file(tabs.facts, "mlx5_0", 1, "gid_attrs/types/7") == "RoCE v2");
    CHECK(port_file(tabs.facts, "mlx5_0", 1, "gid_attrs/types/4") == "IB/RoCE v1");
    CHECK(port_netdev(tabs.facts, "mlx5_0", 1) == "net1");
    const auto spaces = read(
        "mlx5_bond_0     1       2       0000:0000:0000:0000:0000:ffff:1e99:0aaf 30.153.10.175"
        "   v1      b3.vxlan.30100\n");
    CHECK(port_file(spaces.facts, "mlx5_bond_0", 1, "gid_attrs/ndevs/2") == "b3.vxlan.30100");
  }
  SECTION(
      "dcb pfc / ets / app show, as their man pages print them (dcb-pfc.8, dcb-ets.8, dcb-app.8)") {
    const auto r = read(
        "# dcb pfc show dev eth0\npfc-cap 8 macsec-bypass off delay 4096\n"
        "prio-pfc 0:off 1:off 2:off 3:off 4:off 5:off 6:on 7:on\n"
        "# dcb ets show dev eth0 prio-tc tc-tsa tc-bw\nprio-tc 0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7\n"
        "tc-tsa 0:ets 1:ets 2:ets 3:strict 4:strict 5:strict 6:strict 7:strict\n"
        "tc-bw 0:33 1:33 2:34 3:0 4:0 5:0 6:0 7:0\n"
        "# dcb app show dev eth0 dscp-prio\ndscp-prio 0:0 CS3:2 CS3:3 CS6:6\n");
    CHECK(r.report.formats == std::vector<std::string>{"dcb"});
    REQUIRE(r.facts.netdevs.contains("eth0"));
    const auto& dcb = r.facts.netdevs.at("eth0").dcb;
    REQUIRE(dcb.has_value());
    CHECK(dcb->pfc_enabled == std::uint8_t{0xc0});
    CHECK(dcb->pfc_cap == std::uint8_t{8});
    CHECK(dcb->pfc_delay == std::uint16_t{4096});
    CHECK(dcb->ets_prio_tc == std::vector<std::uint8_t>{0, 1, 2, 3, 4, 5, 6, 7});
    CHECK(dcb->ets_tc_tsa == std::vector<std::uint8_t>{2, 2, 2, 0, 0, 0, 0, 0});
    CHECK(dcb->ets_tc_bw == std::vector<std::uint8_t>{33, 33, 34, 0, 0, 0, 0, 0});
    REQUIRE(dcb->app.size() == 4);
    CHECK(dcb->app[1] == DcbAppEntry{5, 24, 2});
    CHECK(dcb->app[3] == DcbAppEntry{5, 48, 6});
    check_accounting(r.report);
    // A cut prio-pfc line is not half a PFC map.
    const auto cut = read("# dcb pfc show dev eth0\nprio-pfc 0:off 1:off 2:off 3:on\n");
    CHECK_FALSE(cut.facts.netdevs.contains("eth0"));
    CHECK(cut.report.log.ignored.at("dcb line cut or malformed") == 1);
  }
  SECTION("a file no format knows is listed, not fatal") {
    const auto r = read("The RDMA bandwidth is low since Monday.\nAny idea?\n");
    CHECK(r.report.formats.empty());
    CHECK(r.report.log.used == 0);
    CHECK(r.report.log.ignored.at("no known format") == 2);
    CHECK(describe(r.report).starts_with("no known format: 0 of 2 lines used"));
  }
}

TEST_CASE("capture assembly: sequences, labels, dates and two hosts", "[capture]") {
  SECTION("three rdma link pastes of one port are three captures in order (ROCm/rccl#1423)") {
    const auto set = assemble({
        {"1.txt", "link mlx5_7/1 lid 3403 state DOWN physical_state POLLING\n", {}},
        {"2.txt", "link mlx5_7/1 lid 3403 state DOWN physical_state LINK_UP\n", {}},
        {"3.txt", "link mlx5_7/1 lid 3403 state ACTIVE physical_state LINK_UP\n", {}},
    });
    REQUIRE(set.captures.size() == 3);
    CHECK(port_file(set.captures[0], "mlx5_7", 1, "phys_state") == "2: Polling");
    CHECK(port_file(set.captures[1], "mlx5_7", 1, "phys_state") == "5: LinkUp");
    CHECK(port_file(set.captures[2], "mlx5_7", 1, "state") == "4: ACTIVE");
  }
  SECTION("\"Before\" / \"After\" labels order the files; an unnamed fragment joins the netdev") {
    // bytedance/byteps#179: the "After:" paste has no command line.
    const auto set = assemble({
        {"after.txt", "After:\n```\n     rx_prio0_bytes: 88171136852706\n```\n", {}},
        {"before.txt",
         "Before benchmarking:\n`ethtool -S enp178s0f0 |grep prio`\n```\n"
         "     rx_prio0_bytes: 88034564921216\n```\n",
         {}},
    });
    REQUIRE(set.captures.size() == 2);
    CHECK(ethtool(set.captures[0], "enp178s0f0", "rx_prio0_bytes") == 88034564921216ULL);
    CHECK(ethtool(set.captures[1], "enp178s0f0", "rx_prio0_bytes") == 88171136852706ULL);
    CHECK(set.files[0].notes.size() == 1);
  }
  SECTION("a diff -u of two dumps is before and after") {
    // The before/after values of bytedance/byteps#179 as `diff -u` prints two dumps of them.
    const auto set = assemble({{"prio.diff",
                                "$ diff -u before.txt after.txt\n--- before.txt\t2020-01-01\n"
                                "+++ after.txt\t2020-01-01\n@@ -1,3 +1,3 @@\n"
                                " `ethtool -S enp178s0f0 |grep prio`\n"
                                "-     rx_prio0_bytes: 88034564921216\n"
                                "+     rx_prio0_bytes: 88171136852706\n"
                                "      rx_prio1_bytes: 0\n",
                                {}}});
    REQUIRE(set.files.size() == 2);
    CHECK(set.files[0].name == "prio.diff (diff: before)");
    CHECK(set.files[1].name == "prio.diff (diff: after)");
    REQUIRE(set.captures.size() == 2);
    CHECK(ethtool(set.captures[0], "enp178s0f0", "rx_prio0_bytes") == 88034564921216ULL);
    CHECK(ethtool(set.captures[1], "enp178s0f0", "rx_prio0_bytes") == 88171136852706ULL);
    CHECK(ethtool(set.captures[1], "enp178s0f0", "rx_prio1_bytes") == 0ULL);
  }
  SECTION("date lines stamp the captures") {
    const auto set = assemble({{"session.txt",
                                "$ date\nTue Dec  1 21:36:46 UTC 2026\n$ rdma statistic\n"
                                "link mlx5_0/1 out_of_buffer 1543\n$ date\n"
                                "Tue Dec  1 21:37:46 UTC 2026\n$ rdma statistic\n"
                                "link mlx5_0/1 out_of_buffer 1600\n",
                                {}}});
    REQUIRE(set.captures.size() == 2);
    REQUIRE(set.times.size() == 2);
    REQUIRE(set.times[0].has_value());
    REQUIRE(set.times[1].has_value());
    CHECK(std::chrono::duration_cast<std::chrono::seconds>(*set.times[1] - *set.times[0]).count() ==
          60);
  }
  SECTION("two hosts in one file are not merged") {
    // The sender and receiver lines of sonic-net/sonic-buildimage#21891 under two prompts.
    const auto set = assemble({{"both.txt",
                                "root@sender:~# rdma statistic\n"
                                "link mlx5_1/1 rnr_nak_retry_err 1543 local_ack_timeout_err 15\n"
                                "root@receiver:~# rdma statistic\n"
                                "link mlx5_0/1 out_of_buffer 1543 out_of_sequence 0\n",
                                {}}});
    CHECK(set.host == "sender");
    REQUIRE(set.captures.size() == 1);
    CHECK(set.captures[0].devices.contains("mlx5_1"));
    CHECK_FALSE(set.captures[0].devices.contains("mlx5_0"));
    REQUIRE(set.files[0].notes.size() == 1);
    CHECK(set.files[0].notes[0].find("second host (receiver") != std::string::npos);
  }
  SECTION("a bundle's rdmatop recording is recognised, not parsed as pasted output") {
    const auto set = assemble(
        {{"bundle/recording.jsonl", "{\"format\":\"rdmatop.recording\",\"version\":1}\n{}\n", {}}});
    CHECK(set.captures.empty());
    CHECK(set.files[0].formats == std::vector<std::string>{"rdmatop recording"});
    CHECK(describe(set.files[0]).find("report --from") != std::string::npos);
  }
  SECTION("a file that could not be read is listed with its error") {
    const auto set = assemble({{"gone.txt", {}, "gone.txt: No such file or directory"}});
    CHECK(set.captures.empty());
    CHECK(describe(set.files[0]) == "gone.txt: No such file or directory");
  }
}

TEST_CASE("capture snapshot: pasted DCB reaches the netdev", "[capture]") {
  // dcb-pfc.8's example on a RoCE port linked by rdma link (openucx/ucx#11048's line shape).
  const auto set = assemble({{"session.txt",
                              "$ rdma link\nlink mlx5_0/1 state ACTIVE physical_state LINK_UP "
                              "netdev eth0\n# dcb pfc show dev eth0\n"
                              "pfc-cap 8 macsec-bypass off delay 4096\n"
                              "prio-pfc 0:off 1:off 2:off 3:off 4:off 5:off 6:on 7:on\n",
                              {}}});
  REQUIRE(set.captures.size() == 1);
  const Snapshot snap = build_snapshot(set.captures[0], set.files, set.host, 1);
  REQUIRE(snap.netdevs.size() == 1);
  REQUIRE(snap.netdevs[0].dcb.has_value());
  CHECK(snap.netdevs[0].dcb->pfc_enabled == std::uint8_t{0xc0});
  // Without a dcb paste no DCB status is made up (a sysfs tree has none either).
  const auto plain = assemble({{"link.txt", "link mlx5_0/1 state ACTIVE netdev eth0\n", {}}});
  const Snapshot none = build_snapshot(plain.captures[0], plain.files, plain.host, 1);
  for (const auto& st : none.sources) CHECK(st.source != "dcb");
}

TEST_CASE("capture snapshot: the collectors read the facts as a sysfs tree", "[capture]") {
  // Mellanox/network-operator#249 (ibstat) with imbue-ai/cluster-health#4's ibdev2netdev shape.
  const auto set = assemble({
      {"ibstat.txt",
       "CA 'mlx5_7'\n        Firmware version: 20.28.4000\n        Port 1:\n"
       "                State: Down\n                Physical state: LinkUp\n"
       "                Link layer: InfiniBand\n",
       {}},
      {"ibdev2netdev.txt", "mlx5_7 port 1 ==> ib7 (Down)\n", {}},
  });
  REQUIRE(set.captures.size() == 1);
  const Snapshot snap = build_snapshot(set.captures[0], set.files, set.host, 1);
  REQUIRE(snap.devices.size() == 1);
  const DeviceSample& dev = snap.devices[0];
  CHECK(dev.name == "mlx5_7");
  CHECK(dev.driver == "mlx5");  // from the name, as the sysfs collector does without a link
  CHECK(dev.fw_ver == "20.28.4000");
  CHECK(dev.pci_address.empty());  // no paste says it
  REQUIRE(dev.ports.size() == 1);
  CHECK(dev.ports[0].state_id == 1U);
  CHECK(dev.ports[0].phys_state == "LinkUp");
  CHECK(dev.ports[0].link_layer == "InfiniBand");
  CHECK(dev.ports[0].netdev == "ib7");
  CHECK_FALSE(dev.ports[0].rate_gbps.has_value());
  REQUIRE(snap.netdevs.size() == 1);
  CHECK(snap.netdevs[0].operstate == "down");
  CHECK_FALSE(snap.netdevs[0].mtu.has_value());
  // One "capture" source per file, first.
  REQUIRE(snap.sources.size() >= 2);
  CHECK(snap.sources[0].source == "capture");
  CHECK(snap.sources[0].target == "ibstat.txt");
  CHECK(snap.sources[0].message.starts_with("ibstat: 6 of 6 lines used"));
  CHECK(snap.sources[1].target == "ibdev2netdev.txt");
}
