// Table tests of the capture formats for DCB, PMA and IRQ state (collector/capture/
// parse_mlnx_qos.cpp, parse_perfquery.cpp, parse_lldptool.cpp, parse_ethtool_tunable.cpp,
// parse_proc_interrupts.cpp): real pastes, each with where it was published, or the tool's own
// print code where no paste was found, and the hostile shapes (prompts, CRLF, ANSI colours, a
// cut last line).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "collector/capture/capture_host.h"
#include "collector/capture/capture_text.h"
#include "tests/support/capture_read.h"

using namespace rdmatop;
using namespace rdmatop::capture;

namespace capture_dcb_formats_test {

using Read = capture_test::CaptureRead;
constexpr auto read = capture_test::read_capture;

const DcbInfo* dcb_of(const Facts& f, const std::string& netdev) {
  const auto n = f.netdevs.find(netdev);
  return n == f.netdevs.end() || !n->second.dcb ? nullptr : &*n->second.dcb;
}

std::string pma(const Facts& f, const std::string& dev, std::uint32_t port,
                const std::string& counter) {
  return capture_test::capture_port_file(f, dev, port, "counters/" + counter);
}

std::size_t ignored(const FileReport& r, const std::string& reason) {
  const auto it = r.log.ignored.find(reason);
  return it == r.log.ignored.end() ? 0 : it->second;
}

constexpr auto check_accounting = capture_test::check_capture_accounting;

// NVIDIA community "mlnx_qos" (community.mellanox.com/docs/DOC-2792, MLNX_OFED 4.2), pasted as
// that page shows it: the PFC table unindented, a blank line around each TC's priority.
const char* const kMlnxQosCommunity =
    "# mlnx_qos -i eth2\n"
    "DCBX mode: OS controlled\n"
    "Priority trust state: dscp\n"
    "dscp2prio mapping:\n"
    "prio:0 dscp:07,06,05,04,03,02,01,00,\n"
    "prio:1 dscp:15,14,13,12,11,10,09,08,\n"
    "prio:2 dscp:23,22,21,20,19,18,17,16,\n"
    "prio:3 dscp:31,30,29,28,27,26,25,24,\n"
    "prio:4 dscp:39,38,37,36,35,34,33,32,\n"
    "prio:5 dscp:47,46,45,44,43,42,41,40,\n"
    "prio:6 dscp:55,54,53,52,51,50,49,48,\n"
    "prio:7 dscp:63,62,61,60,59,58,57,56,\n"
    "Cable len: 10\n"
    "PFC configuration:\n"
    "priority 0 1 2 3 4 5 6 7\n"
    "enabled 1 0 1 0 0 0 1 1\n"
    "\n"
    "tc: 0 ratelimit: unlimited, tsa: ets, bw: 10%\n\npriority: 1\n\n"
    "tc: 1 ratelimit: unlimited, tsa: ets, bw: 10%\n\npriority: 0\n\n"
    "tc: 2 ratelimit: unlimited, tsa: ets, bw: 10%\n\npriority: 2\n\n"
    "tc: 3 ratelimit: unlimited, tsa: ets, bw: 10%\n\npriority: 3\n\n"
    "tc: 4 ratelimit: unlimited, tsa: ets, bw: 10%\n\npriority: 4\n\n"
    "tc: 5 ratelimit: unlimited, tsa: ets, bw: 10%\n\npriority: 5\n\n"
    "tc: 6 ratelimit: unlimited, tsa: strict\n\npriority: 6\n\n"
    "tc: 7 ratelimit: unlimited, tsa: ets, bw: 40%\n\npriority: 7\n";

// linux-rdma/infiniband-diags#16 ("perfquery -x 10 1" on RHEL 7.5), values as posted.
const char* const kPerfqueryX =
    "# Port extended counters: Lid 10 port 1 (CapMask: 0x5300 CapMask2: 0x0000002)\n"
    "PortSelect:......................1\n"
    "CounterSelect:...................0x0000\n"
    "PortXmitData:....................0\n"
    "PortRcvData:.....................0\n"
    "PortXmitPkts:....................0\n"
    "PortRcvPkts:.....................0\n"
    "PortUnicastXmitPkts:.............0\n"
    "PortUnicastRcvPkts:..............0\n"
    "PortMulticastXmitPkts:...........0\n"
    "PortMulticastRcvPkts:............0\n"
    "CounterSelect2:..................0x00000000\n"
    "SymbolErrorCounter:..............0\n"
    "LinkErrorRecoveryCounter:........0\n"
    "LinkDownedCounter:...............0\n"
    "PortRcvErrors:...................0\n"
    "PortRcvRemotePhysicalErrors:.....0\n"
    "PortRcvSwitchRelayErrors:........0\n"
    "PortXmitDiscards:................0\n"
    "PortXmitConstraintErrors:........0\n"
    "PortRcvConstraintErrors:.........0\n"
    "LocalLinkIntegrityErrors:........0\n"
    "ExcessiveBufferOverrunErrors:....0\n"
    "VL15Dropped:.....................0\n"
    "PortXmitWait:....................0\n"
    "QP1Dropped:......................0\n";

// intel ice driver README (E800 series, "Verify output of lldptool -ti <interface>"), its
// indentation as published.
const char* const kLldptoolTi =
    "# lldptool -ti eth0\n"
    "Chassis ID TLV\n"
    "\tMAC: 68:05:ca:a3:89:78\n"
    "Port ID TLV\n"
    "\tMAC: 68:05:ca:a3:89:78\n"
    "Time to Live TLV\n"
    "\t120\n"
    "IEEE 8021QAZ ETS Configuration TLV\n"
    "\t Willing: no\n"
    "\t CBS: not supported\n"
    "\t MAX_TCS: 8\n"
    "\t PRIO_MAP: 0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0\n"
    "\t TC Bandwidth: 100% 0% 0% 0% 0% 0% 0% 0%\n"
    "\t TSA_MAP: 0:ets 1:strict 2:strict 3:strict 4:strict 5:strict 6:strict 7:strict\n"
    "IEEE 8021QAZ PFC TLV\n"
    "\t Willing: no\n"
    "\t MACsec Bypass Capable: no\n"
    "\t PFC capable traffic classes: 8\n"
    "\t PFC enabled: 0\n"
    "End of LLDPDU TLV\n";

// intel/nemu#82 (a cold-assigned i40e NIC, 4 CPUs), the first rows as posted.
const char* const kInterrupts =
    "root@clr-19bebbac82a145bb8c96500c89dbfd8a ~ # cat /proc/interrupts\n"
    "           CPU0       CPU1       CPU2       CPU3\n"
    "  1:          0          0          0          0   IO-APIC  17-fasteoi   ACPI:Ged\n"
    "  9:          0          0          0          2   PCI-MSI 134463488-edge      "
    "i40e-0001:00:0f.0:misc\n"
    " 10:        119          0          0          0   PCI-MSI 134463489-edge      "
    "i40e-enP1s15-TxRx-0\n"
    " 11:          0          0          0          0   PCI-MSI 134463490-edge      "
    "i40e-enP1s15-TxRx-1\n"
    "NMI:          0          0          0          0   Non-maskable interrupts\n"
    " 12:          0          0";  // cut before its last CPU count

// The test cases stay in this namespace too: a unity batch must not see two read()s.

TEST_CASE("capture mlnx_qos: the dcbnl fields the dcb parser fills", "[capture]") {
  SECTION("NVIDIA community mlnx_qos page (MLNX_OFED 4.2)") {
    const auto r = read(kMlnxQosCommunity);
    CHECK(r.report.formats == std::vector<std::string>{"mlnx_qos"});
    const DcbInfo* dcb = dcb_of(r.facts, "eth2");
    REQUIRE(dcb != nullptr);
    CHECK(dcb->trust == "dscp");
    CHECK(dcb->pfc_enabled == std::uint8_t{0xc5});  // priorities 0, 2, 6, 7
    CHECK(dcb->pfc_delay == std::uint16_t{10});     // "Cable len" is ieee_pfc.delay
    CHECK_FALSE(dcb->pfc_cap.has_value());          // mlnx_qos does not print it
    CHECK(dcb->ets_prio_tc == std::vector<std::uint8_t>{1, 0, 2, 3, 4, 5, 6, 7});
    CHECK(dcb->ets_tc_tsa == std::vector<std::uint8_t>{2, 2, 2, 2, 2, 2, 0, 2});
    CHECK(dcb->ets_tc_bw.empty());  // the strict TC prints no bandwidth: not made up
    REQUIRE(dcb->app.size() == 64);
    CHECK(dcb->app[26] == DcbAppEntry{5, 26, 3});
    CHECK(dcb->app[63] == DcbAppEntry{5, 63, 7});
    CHECK(ignored(r.report,
                  "DCBX mode: the host model has no place for it (DCB_CMD_GDCBX is "
                  "not read)") == 1);
    check_accounting(r.report);
  }
  SECTION("as mlnx-tools pretty_print prints it: buffers, vendor TSA, pcp trust; CRLF, colour") {
    // python/mlnx_qos pretty_print: tabs before the PFC rows and the TCs' priorities.
    const auto r = read(
        "user@node1:~$ sudo mlnx_qos -i ens1f0np0\r\n"
        "DCBX mode: OS controlled\r\n"
        "Priority trust state: \x1b[1mpcp\x1b[0m\r\n"
        "default priority:\r\n"
        "Receive buffer size (bytes): 130944,130944,0,0,0,0,0,0,total_size=1027392\r\n"
        "Cable len: 7\r\n"
        "PFC configuration:\r\n"
        "\tpriority    0   1   2   3   4   5   6   7\r\n"
        "\tenabled     0   0   0   1   0   0   0   0   \r\n"
        "\tbuffer      0   0   0   1   0   0   0   0   \r\n"
        "tc: 0 ratelimit: unlimited, tsa: vendor\r\n"
        "\t priority:  1\r\n"
        "tc: 1 ratelimit: unlimited, tsa: vendor\r\n"
        "\t priority:  0\r\n"
        "\t priority:  2\r\n");
    CHECK(r.report.formats == std::vector<std::string>{"mlnx_qos"});
    const DcbInfo* dcb = dcb_of(r.facts, "ens1f0np0");
    REQUIRE(dcb != nullptr);
    CHECK(dcb->trust == "pcp");
    CHECK(dcb->app.empty());
    CHECK(dcb->pfc_enabled == std::uint8_t{0x08});
    CHECK(dcb->pfc_delay == std::uint16_t{7});
    CHECK(dcb->ets_prio_tc.empty());  // three of eight priorities shown
    CHECK(dcb->ets_tc_tsa.empty());   // two of eight TCs shown
    CHECK(ignored(r.report, "receive buffers: the host model has no place for them") == 1);
    CHECK(ignored(r.report, "prio2buffer: the host model has no place for it") == 1);
    check_accounting(r.report);
  }
  SECTION("a cut last line is not a value") {
    const auto r = read(
        "$ mlnx_qos -i eth2\nPriority trust state: dscp\ndscp2prio mapping:\n"
        "\tprio:0 dscp:07,06,05,04,03,02,01,00,\n\tprio:3 dscp:31,30,2");
    const DcbInfo* dcb = dcb_of(r.facts, "eth2");
    REQUIRE(dcb != nullptr);
    CHECK(dcb->app.size() == 8);  // not DSCP 2 -> priority 3
    CHECK(ignored(r.report, "not mlnx_qos output") == 1);
    const auto enabled = read(
        "$ mlnx_qos -i eth2\nPFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n"
        "\tenabled     0   0   0   1");
    CHECK(dcb_of(enabled.facts, "eth2") == nullptr);
    CHECK(ignored(enabled.report, "mlnx_qos line cut or malformed") == 1);
  }
  SECTION("without -i IF nothing is attributed") {
    const auto r = read("Priority trust state: dscp\nPFC configuration:\n");
    CHECK(r.report.formats == std::vector<std::string>{"mlnx_qos"});
    CHECK(r.facts.netdevs.empty());
    CHECK(ignored(r.report, "mlnx_qos output that names no interface (mlnx_qos -i IF)") == 2);
  }
  SECTION("a snapshot's netdev gets the same DcbInfo as from dcb") {
    const auto set = assemble({{"qos.txt",
                                "$ rdma link\nlink mlx5_0/1 state ACTIVE physical_state LINK_UP "
                                "netdev eth2\n" +
                                    std::string(kMlnxQosCommunity),
                                {}}});
    REQUIRE(set.captures.size() == 1);
    const Snapshot snap = build_snapshot(set.captures[0], set.files, set.host, 1);
    REQUIRE(snap.netdevs.size() == 1);
    REQUIRE(snap.netdevs[0].dcb.has_value());
    CHECK(snap.netdevs[0].dcb->pfc_enabled == std::uint8_t{0xc5});
    CHECK(snap.netdevs[0].dcb->trust == "dscp");
  }
}

TEST_CASE("capture perfquery: the port's PMA counters/ files", "[capture]") {
  SECTION("perfquery -x -C DEV -P PORT (the bundle's command) files every counter") {
    const auto r = read("$ perfquery -x -C mlx5_0 -P 1\n" + std::string(kPerfqueryX));
    CHECK(r.report.formats == std::vector<std::string>{"perfquery"});
    CHECK(pma(r.facts, "mlx5_0", 1, "port_xmit_data") == "0");
    CHECK(pma(r.facts, "mlx5_0", 1, "unicast_rcv_packets") == "0");
    CHECK(pma(r.facts, "mlx5_0", 1, "link_downed") == "0");
    CHECK(pma(r.facts, "mlx5_0", 1, "VL15_dropped") == "0");
    CHECK(ignored(r.report, "perfquery selector field") == 3);
    CHECK(ignored(r.report, "PMA counter with no counters/ file (QP1Dropped, ...)") == 1);
    CHECK(r.report.notes.empty());
    check_accounting(r.report);
  }
  SECTION("perfquery -x 10 1 names a LID: another port unless the files show that LID") {
    const auto remote = read("# perfquery -x 10 1\n" + std::string(kPerfqueryX));
    CHECK(remote.facts.devices.empty());
    REQUIRE(remote.report.notes.size() == 1);
    CHECK(remote.report.notes[0].find("LID 10") != std::string::npos);
    const auto local = read(
        "$ grep \"\" /sys/class/infiniband/mlx5_0/ports/1/{lid,state}\n"
        "/sys/class/infiniband/mlx5_0/ports/1/lid:0xa\n"
        "/sys/class/infiniband/mlx5_0/ports/1/state:4: ACTIVE\n"
        "# perfquery -x 10 1\n" +
        std::string(kPerfqueryX));
    CHECK(pma(local.facts, "mlx5_0", 1, "port_rcv_data") == "0");
  }
  SECTION("without a header the PMA attribute is unknown (linux-rdma/ibsim#1, plain perfquery)") {
    // The paste starts at PortSelect: the "# Port counters" line was lost to Markdown.
    const auto r = read(
        "$ perfquery 5 1\nPortSelect:......................1\n"
        "CounterSelect:...................0x0000\nSymbolErrorCounter:..............0\n"
        "LinkErrorRecoveryCounter:........0\nLinkDownedCounter:...............0\n");
    CHECK(r.facts.devices.empty());
    CHECK(ignored(r.report,
                  "perfquery counter under no \"# Port ... counters: Lid L port P\" header") == 3);
  }
  SECTION("plain perfquery: 32-bit data counters and saturated widths are not sysfs's") {
    const auto r = read(
        "ibstat\nCA 'mlx5_2'\n\tPort 1:\n\t\tState: Active\n"
        "$ perfquery\n# Port counters: Lid 1 port 1 (CapMask: 0x1600)\n"
        "LinkDownedCounter:...............3\nPortXmitData:....................4294967295\n");
    CHECK(pma(r.facts, "mlx5_2", 1, "link_downed") == "3");  // the one device the files name
    CHECK(pma(r.facts, "mlx5_2", 1, "port_xmit_data") == "<absent>");
    CHECK(ignored(r.report,
                  "32-bit PortCounters data counter (sysfs has the extended one: perfquery -x)") ==
          1);
    const auto wide = read(
        "$ perfquery -x -C mlx5_0\n# Port extended counters: Lid 1 port 1\n"
        "LinkDownedCounter:...............300\nSymbolErrorCounter:..............65535\n");
    CHECK(pma(wide.facts, "mlx5_0", 1, "link_downed") == "<absent>");  // 8 bits in sysfs
    CHECK(pma(wide.facts, "mlx5_0", 1, "symbol_error") == "65535");
    const auto two = read(
        "CA 'mlx5_0'\nCA 'mlx5_1'\n$ perfquery\n# Port counters: Lid 1 port 1\n"
        "LinkDownedCounter:...............3\n");
    CHECK(pma(two.facts, "mlx5_0", 1, "link_downed") == "<no port>");
    CHECK(pma(two.facts, "mlx5_1", 1, "link_downed") == "<no port>");
  }
}

TEST_CASE("capture lldptool: the local agent's TLVs as DCB facts", "[capture]") {
  SECTION("lldptool -ti (intel ice README): not willing, so the driver runs these") {
    const auto r = read(kLldptoolTi);
    CHECK(r.report.formats == std::vector<std::string>{"lldptool"});
    const DcbInfo* dcb = dcb_of(r.facts, "eth0");
    REQUIRE(dcb != nullptr);
    CHECK(dcb->ets_prio_tc == std::vector<std::uint8_t>{0, 0, 0, 0, 0, 0, 0, 0});
    CHECK(dcb->ets_tc_bw == std::vector<std::uint8_t>{100, 0, 0, 0, 0, 0, 0, 0});
    CHECK(dcb->ets_tc_tsa == std::vector<std::uint8_t>{2, 0, 0, 0, 0, 0, 0, 0});
    CHECK(dcb->pfc_enabled == std::uint8_t{0x01});
    CHECK(dcb->pfc_cap == std::uint8_t{8});
    CHECK(ignored(r.report, "LLDP TLV with no place in the host model") == 7);
    check_accounting(r.report);
  }
  SECTION("a willing PFC TLV (netdev, dpaa2-eth PFC, 2020) may be the peer's: not used") {
    const auto r = read(
        "root@localhost:~# lldptool -t -i eth1 -V PFC\nIEEE 8021QAZ PFC TLV\n"
        "         Willing: yes\n         MACsec Bypass Capable: no\n"
        "         PFC capable traffic classes: 8\n         PFC enabled: 1 3 7\n");
    CHECK(r.report.formats == std::vector<std::string>{"lldptool"});
    CHECK(dcb_of(r.facts, "eth1") == nullptr);
    CHECK(ignored(r.report,
                  "willing TLV: the driver may run the peer's values, which the paste "
                  "does not show") == 5);
    check_accounting(r.report);
  }
  SECTION("APP TLV as lldp_8021qaz_clif.c prints it; -n is the peer's") {
    const std::string app =
        "IEEE 8021QAZ APP TLV\n\tApp#0:\n\t Priority: 3\n\t Sel: 5\n\t Reserved Port: 26\n\n"
        "\tApp#1:\n\t Priority: 5\n\t Sel: 1\n\t Ethertype: 0x8906\n\n";
    const auto local = read("$ lldptool -t -i eth3 -V APP\n" + app);
    const DcbInfo* dcb = dcb_of(local.facts, "eth3");
    REQUIRE(dcb != nullptr);
    REQUIRE(dcb->app.size() == 2);
    CHECK(dcb->app[0] == DcbAppEntry{5, 26, 3});
    CHECK(dcb->app[1] == DcbAppEntry{1, 0x8906, 5});
    check_accounting(local.report);
    const auto peer = read("$ lldptool -t -n -i eth3 -V APP\n" + app);
    CHECK(dcb_of(peer.facts, "eth3") == nullptr);
    CHECK(ignored(peer.report,
                  "peer TLV (lldptool -n): the host model has no place for the link "
                  "partner's DCB") == 9);
  }
  SECTION("a cut TLV: no Willing line seen, nothing used") {
    const auto r = read("$ lldptool -t -i eth0 -V PFC\nIEEE 8021QAZ PFC TLV\n\t MACsec");
    CHECK(dcb_of(r.facts, "eth0") == nullptr);
    check_accounting(r.report);
  }
}

TEST_CASE("capture ethtool --get-tunable: the PFC storm-prevention timeout", "[capture]") {
  // As ethtool.c print_tunable prints a u16 tunable ("%s: %u"); ethtool(8) --get-tunable.
  const auto r = read(
      "# ethtool --get-tunable ens1f0np0 rx-copybreak pfc-prevention-tout\n"
      "rx-copybreak: 256\npfc-prevention-tout: 100\n");
  CHECK(r.report.formats == std::vector<std::string>{"ethtool --get-tunable"});
  REQUIRE(r.facts.netdevs.contains("ens1f0np0"));
  CHECK(r.facts.netdevs.at("ens1f0np0").pfc_prevention_tout_ms == std::uint16_t{100});
  CHECK(ignored(r.report, "copybreak tunable: the host model has no place for it") == 1);
  check_accounting(r.report);
  // It reaches the netdev the live collector fills by ETHTOOL_GTUNABLE.
  const auto set = assemble({{"t.txt",
                              "$ rdma link\nlink mlx5_0/1 state ACTIVE netdev ens1f0np0\n"
                              "$ ethtool --get-tunable ens1f0np0 pfc-prevention-tout\n"
                              "pfc-prevention-tout: 65535\n",
                              {}}});
  REQUIRE(set.captures.size() == 1);
  const Snapshot snap = build_snapshot(set.captures[0], set.files, set.host, 1);
  REQUIRE(snap.netdevs.size() == 1);
  CHECK(snap.netdevs[0].pfc_prevention_tout_ms == std::uint16_t{65535});
  // Without the command line the interface is unknown.
  const auto bare = read("pfc-prevention-tout: 100\n");
  CHECK(bare.facts.netdevs.empty());
  CHECK(ignored(bare.report, "ethtool --get-tunable output that names no interface") == 1);
}

TEST_CASE("capture /proc/interrupts: the rows the live reader parses", "[capture]") {
  const auto r = read(kInterrupts);
  CHECK(r.report.formats == std::vector<std::string>{"/proc/interrupts"});
  CHECK(r.facts.proc_interrupts.find("i40e-enP1s15-TxRx-1") != std::string::npos);
  CHECK(r.facts.proc_interrupts.find(" 12:") == std::string::npos);
  CHECK(ignored(r.report, "not a device interrupt (NMI, LOC, ...)") == 1);
  CHECK(ignored(r.report, "/proc/interrupts row cut or malformed") == 1);
  CHECK(r.report.log.used == 5);  // the header and four rows
  check_accounting(r.report);
}

TEST_CASE("capture /proc/interrupts: IRQs reach a device only by its msi_irqs", "[capture]") {
  // Constructed in the shapes of prometheus/node_exporter#2846 (ls -l of the class link),
  // grep "" of several files, and kernel/irq/proc.c rows. The readiness collector counts the
  // IRQs msi_irqs/ of the device's PCI function lists; the capture shows the class link but not
  // the `device` link the PCI function is found by, so no IRQ is pinned on the device by its
  // action name, and the file says why.
  const auto set = assemble(
      {{"host.txt",
        "$ ls -l /sys/class/infiniband\n"
        "lrwxrwxrwx 1 root root 0 Nov  1 15:37 mlx5_0 -> "
        "../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/infiniband/mlx5_0\n"
        "$ cat /proc/interrupts\n"
        "           CPU0       CPU1\n"
        " 42:         10          5  IR-PCI-MSI 1572864-edge      mlx5_comp0@pci:0000:3b:00.0\n",
        {}}});
  REQUIRE(set.captures.size() == 1);
  CHECK(set.captures[0].proc_interrupts.find("mlx5_comp0") != std::string::npos);
  const Snapshot snap = build_snapshot(set.captures[0], set.files, set.host, 1);
  REQUIRE(snap.devices.size() == 1);
  CHECK(snap.devices[0].irqs.empty());
  REQUIRE(set.files[0].notes.size() == 1);
  CHECK(set.files[0].notes[0].find("msi_irqs") != std::string::npos);
}

TEST_CASE("capture DCB/PMA/IRQ formats: CRLF, colour and a cut last line", "[capture]") {
  // Each real paste above, as a Windows ticket (CRLF) with grep --color's escapes around the
  // first digit of every line: the same facts as the clean paste.
  const std::string samples[] = {kMlnxQosCommunity,
                                 "$ perfquery -x -C mlx5_0 -P 1\n" + std::string(kPerfqueryX),
                                 kLldptoolTi, kInterrupts};
  for (const std::string& clean : samples) {
    std::string dirty;
    bool coloured = false;
    for (const char c : clean) {
      if (c == '\n') {
        dirty += "\r\n";
        coloured = false;
      } else if (c >= '0' && c <= '9' && !coloured) {
        dirty += "\x1b[01;31m\x1b[K" + std::string(1, c) + "\x1b[m\x1b[K";
        coloured = true;
      } else {
        dirty += c;
      }
    }
    const auto a = read(clean);
    const auto b = read(dirty);
    CHECK(a.facts == b.facts);
    CHECK(a.report.log.used == b.report.log.used);
  }
  // A cut last line: no value, not a smaller one.
  const auto perf =
      read("$ perfquery -x -C mlx5_0 -P 1\n" +
           std::string(kPerfqueryX).substr(0, std::string(kPerfqueryX).find("PortRcvData:") + 16));
  CHECK(pma(perf.facts, "mlx5_0", 1, "port_xmit_data") == "0");
  CHECK(pma(perf.facts, "mlx5_0", 1, "port_rcv_data") == "<absent>");
  CHECK(ignored(perf.report, "no value (line cut)") == 1);
  const auto tunable =
      read("# ethtool --get-tunable eth0 pfc-prevention-tout\npfc-prevention-tout:");
  CHECK_FALSE(tunable.facts.netdevs.contains("eth0"));
  CHECK(ignored(tunable.report, "ethtool --get-tunable line cut or malformed") == 1);
}

TEST_CASE("capture formats: the new detectors take no section of the old formats", "[capture]") {
  // Shapes close to the new formats' lines, each read by the format that printed it.
  const struct {
    const char* text;
    const char* format;
  } cases[] = {
      {"# ethtool -S eth0\nNIC statistics:\n     rx_pfc_prevention_tout: 3\n", "ethtool -S"},
      {"# dcb pfc show dev eth0\nprio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off\n", "dcb"},
      {"$ ibstat\nCA 'mlx5_0'\n\tPort 1:\n\t\tBase lid: 10\n\t\tState: Active\n", "ibstat"},
  };
  for (const auto& c : cases) {
    const auto r = read(c.text);
    CHECK(r.report.formats == std::vector<std::string>{c.format});
  }
}

}  // namespace capture_dcb_formats_test
