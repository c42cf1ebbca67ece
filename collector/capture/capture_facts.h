// What pasted command output says about a host (`rdmatop report --capture`, docs/capture.md).
//
// The format parsers (collector/capture/parse_*.cpp) are pure functions: one Section of text in,
// facts out. Facts are kept in the rendering the kernel's own files use, keyed like sysfs
// (drivers/infiniband/core/sysfs.c, net/core/net-sysfs.c): a port's "state" is "4: ACTIVE", a
// counter is its decimal text. A tool that prints another rendering of the same kernel value
// (ibstat "Active", rdma "LINK_UP", ibstat "0x..." GUIDs) is converted to it and to nothing
// else. What no paste says is absent, never 0 and never guessed; the host assembler
// (capture_host.h) serves these facts to the unchanged collectors, so a capture is read exactly
// as the same files in a sysfs tree would be.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collector/model/snapshot.h"

namespace rdmatop::capture {

using Attrs = std::map<std::string, std::string, std::less<>>;

struct PortFacts {
  /// Relative to ports/<n>/: "state", "phys_state", "rate", "link_layer", "counters/<name>",
  /// "hw_counters/<name>", "gids/<i>", "gid_attrs/types/<i>", "gid_attrs/ndevs/<i>".
  Attrs files;
  std::string netdev;  ///< the port's netdev as ibdev2netdev / rdma link / show_gids name it
  /// `rdma statistic qp mode`: only auto mode, the one rendering that names the mode (iproute2
  /// rdma/stat.c prints "qp auto off" for both none and manual).
  std::optional<QpCounterMode> qp_counter_mode;
  /// `rdma statistic qp mode` printed "qp auto off": the mode is none or manual. Which one the
  /// kernel's rule tells (core/counters.c: a port that is not in auto mode is in manual mode
  /// exactly while it has bound counters), so the assembler decides it only when the capture
  /// also holds a whole `rdma statistic qp show` dump (Facts::qp_counters_listed).
  bool qp_counter_not_auto = false;
  /// `rdma statistic qp show`: the counters bound to this port's QPs, sorted by id.
  std::vector<BoundCounter> bound_counters;
  bool operator==(const PortFacts&) const = default;
};

struct DeviceFacts {
  /// Relative to class/infiniband/<dev>/: "node_type", "fw_ver", "node_guid", "sys_image_guid",
  /// "hca_type", "hw_rev", "board_id", "hw_counters/<name>".
  Attrs files;
  std::map<std::uint32_t, PortFacts> ports;
  /// The class link's target as `ls -l /sys/class/infiniband` prints it
  /// ("../../devices/pci0000:17/.../infiniband/irdma0"); empty when no paste shows it.
  std::string class_link;
  /// `rdma resource [show]`: objects in use by the kernel's RES_SUMMARY names ("qp", "cq", "mr",
  /// "pd", "cm_id", "ctx", "srq"), as RDMA netlink gives DeviceSample::resources.
  CounterMap resources;
  bool operator==(const DeviceFacts&) const = default;
};

struct NetdevFacts {
  Attrs files;  ///< relative to class/net/<if>/: "operstate", "mtu", "address", "statistics/x"
  std::optional<CounterMap> ethtool;  ///< `ethtool -S` (whole or a grep fragment)
  std::optional<DriverInfo> driver;   ///< `ethtool -i`
  std::optional<PauseInfo> pause;     ///< `ethtool -a`
  std::optional<DcbInfo> dcb;         ///< `dcb pfc|ets|app show`, `mlnx_qos -i`, `lldptool -t`
  /// `ethtool --get-tunable IF pfc-prevention-tout` (ms; NetdevSample::pfc_prevention_tout_ms)
  std::optional<std::uint16_t> pfc_prevention_tout_ms;
  bool operator==(const NetdevFacts&) const = default;
};

/// `perfquery` counters (counters/<name> files) whose command names no device, or names a
/// LID: placed by the assembler on the one device the capture names (and, for a LID, only on
/// the port the capture shows with that LID), else reported unused.
struct UnplacedPma {
  std::string device;  ///< the -C device, when the command names one
  std::uint32_t port = 0;
  std::string lid;  ///< the LID the command asked for (decimal, as the header prints it); "": none
  Attrs files;
  bool operator==(const UnplacedPma&) const = default;
};

/// Everything the pastes of one host at one time say.
struct Facts {
  std::map<std::string, DeviceFacts, std::less<>> devices;
  std::map<std::string, NetdevFacts, std::less<>> netdevs;
  /// `ethtool -S` lines of a paste that names no interface ("ethtool -S | grep prio" pasted
  /// without its command line): attached by the assembler to the one netdev the other pastes
  /// name, if there is exactly one, and otherwise reported unused.
  std::optional<CounterMap> unnamed_ethtool;
  std::optional<DriverInfo> unnamed_driver;
  /// `devlink dev info` / `devlink health show` by handle ("pci/0000:08:00.0"): driver, serials,
  /// versions and the health reporters of the instance and of its ports, as the live devlink
  /// source gives them (collector/parse/devlink_parse.h).
  std::map<std::string, DevlinkInfo, std::less<>> devlink;
  std::vector<UnplacedPma> unplaced_pma;
  /// The `/proc/interrupts` rows that parse (header and rows), served as the capture's procfs
  /// file "interrupts"; empty when no paste shows it.
  std::string proc_interrupts;
  /// A whole `rdma statistic qp show` dump (the command line shown, no filter, no pipe): every
  /// bound counter the host had is in PortFacts::bound_counters, so a port without one has none.
  bool qp_counters_listed = false;
  bool operator==(const Facts&) const = default;
};

/// One line of a paste, cleaned (no CR, no ANSI escape sequences), with its 1-based number.
struct Line {
  std::string text;
  std::size_t number = 0;
};

/// A run of lines that one command printed: split at prompts, banners and bare command lines
/// (capture_text.h). `command` is the command line that printed it, when the paste shows one.
struct Section {
  std::string command;  ///< "ethtool -S enp178s0f0 |grep prio"; empty when none was pasted
  std::string cwd;      ///< the directory a prompt or a `cd` names ("/sys/class/.../counters")
  std::string host;     ///< the host a prompt names ("node102" of "root@node102:~#")
  std::string banner;   ///< the file a "=== f ===" / "==> f <==" banner names
  std::vector<Line> lines;
};

/// Why a line was not used, per reason, and how many were.
struct LineLog {
  std::size_t used = 0;
  std::map<std::string, std::size_t, std::less<>> ignored;  ///< reason -> lines
  void use() { ++used; }
  void ignore(std::string_view reason) { ++ignored[std::string(reason)]; }
  std::size_t ignored_total() const;
};

/// One format: how strongly a section looks like it (the number of lines only this format
/// prints; 0: not this format) and what it says.
struct FormatParser {
  std::string_view name;  ///< "ibstat", "ethtool -S", ... as docs/capture.md lists them
  std::size_t (*detect)(const Section&);
  void (*parse)(const Section&, Facts&, LineLog&);
};

/// Every format, in a fixed order (capture_formats.cpp).
const std::vector<FormatParser>& formats();
/// The format with this name, or null.
const FormatParser* find_format(std::string_view name);

}  // namespace rdmatop::capture
