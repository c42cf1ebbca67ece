// The PFC fast path's detector: per-priority pause counters sampled every ~100 ms (not the
// rules' 1-minute rates) turned into the same findings the PFC rules name (rules/builtin/pfc.yaml),
// by the signatures the switch and NIC watchdogs use (docs/rules.md, "Sub-second PFC detection"):
//
//  * a stall: over one poll interval the priority was paused >= 99% of the time in one
//    direction and the traffic that pause holds back made no progress (SONiC pfcwd: "queue
//    paused, no packets transmitted"; Juniper/Arista watchdogs alike). A stall that lasts the
//    detection time (default 100 ms, the mlx5 storm watchdog's auto timeout) fires:
//      - we pause the peer (tx) and nothing arrives          -> RdmaPfcStormFromNic
//      - the peer pauses us (rx), we cannot send             -> RdmaPfcPushbackFromNetwork
//      - both, and the pause never lifts (no transitions)    -> RdmaPfcDeadlockSuspected
//  * sustained pushback: rx occupancy >= 50% (the rule's threshold) over a 500 ms window;
//  * the NIC's own storm-watchdog counters rising: hard evidence, the first rise fires
//    (RdmaPfcStormWarning / RdmaPfcStormWatchdogTriggered).
//
// Where a driver counts only pause frames, the paused time is estimated as frames x 65535
// quanta of 512 bit times at the link rate (IEEE 802.1Qbb: the longest pause one frame asks
// for), an upper bound; the finding says it is an estimate.
//
// Hysteresis: one incident is one finding, from its first stalled interval (active_since, the
// onset) and its detection (fired_at) until it has been clear for the restoration time. Pause
// that stops without the held-back traffic moving again is not recovery (the NIC watchdog
// disabled PFC, or the link went down); a counter that goes backwards (driver reload, link
// flap resetting PPCNT) restarts the baseline and is neither onset nor recovery.
//
// Pure: series and a clock in, findings out; no I/O.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "collector/normalize/series.h"
#include "rules/finding.h"

namespace rdmatop::fast {

struct DetectorConfig {
  /// Paused share of an interval that counts as a stall (switch watchdogs: the whole window).
  double stall_occupancy = 0.99;
  /// Continuous stall before a storm, pushback-stall or deadlock fires (mlx5 auto 100 ms).
  double detection_s = 0.1;
  /// Sustained pushback: rx occupancy over the window (RdmaPfcPushbackFromNetwork's 50%).
  double pushback_occupancy = 0.5;
  double pushback_window_s = 0.5;
  /// Tx occupancy at or above which rx pause is not counted as pushback (the rule's `unless`).
  double pushback_unless_tx = 0.9;
  /// An interval under this occupancy, with progress where it can be seen, is clear.
  double clear_occupancy = 0.5;
  /// Clear for this long resolves an incident.
  double restoration_s = 1.0;
  /// Storm-watchdog counters quiet for this long resolve their finding.
  double watchdog_quiet_s = 5.0;
  /// Resolved findings stay visible this long (as the rules keep them).
  double resolved_retention_s = 900.0;
  /// Packets per second under which a direction counts as no progress (a few stray frames,
  /// e.g. CNPs or LLDP on the priority, are not traffic).
  double progress_packets_per_s = 100.0;
};

/// How a port's pause is measured on the fast path.
enum class PauseMeasure : std::uint8_t {
  none,      ///< no per-priority PFC counters: the fast path cannot run here
  duration,  ///< the driver counts paused time (mlx5 *_pause_duration, bnxt *_duration_us)
  frames,    ///< frames only (ice): paused time estimated from frames x quanta
};

const char* to_string(PauseMeasure measure);

class PfcFastDetector {
 public:
  explicit PfcFastDetector(DetectorConfig config = {});

  /// One poll: the fast path's series (rdma_pfc_pause_{seconds,frames,transitions}_total,
  /// rdma_priority_packets_total, rdma_pause_storm_events_total and the port's
  /// rdma_port_rate_bytes_per_second) at `t_us` (unix microseconds, or simulated time).
  /// Returns true when the findings changed (a new, fired or resolved incident).
  bool observe(const std::vector<Series>& series, std::int64_t t_us);

  /// Pending (a stall not yet as long as the detection time), firing and recently resolved
  /// incidents, named and labelled like the rules' findings.
  std::vector<Finding> findings() const;

  /// Polls observed so far.
  std::uint64_t polls() const { return polls_; }

 private:
  struct Totals {
    std::optional<double> seconds, frames, transitions, packets;
  };
  struct Direction {
    Totals last;
    double stall_since = -1;  ///< seconds; < 0 when not stalled
    bool stalled = false;     ///< the last interval was a stall
    double occupancy = 0;     ///< the last interval's
    bool progress = false;    ///< the last interval moved traffic (or cannot tell)
    bool progress_known = false;
    bool transitions_rose = false;
  };
  struct Interval {
    double dt = 0, rx_paused = 0, tx_paused = 0;
  };
  struct Incident {
    Finding finding;
    double onset_s = 0;
    double clear_since = -1;
    bool blinded = false;  ///< the NIC watchdog rose during the incident
  };
  struct Priority {
    std::string device, port, netdev, priority;
    double last_t = -1;
    Direction rx, tx;
    PauseMeasure measure = PauseMeasure::none;
    std::vector<Interval> window;  ///< the last pushback_window_s of intervals
  };
  struct Watchdog {
    std::optional<double> warnings, errors;
    double last_t = -1;
    double last_rise_s[2] = {-1, -1};  ///< warning, error
  };
  using PriorityKey = std::tuple<std::string, std::string, std::string>;  ///< device, port, prio
  using PortKey = std::pair<std::string, std::string>;
  using IncidentKey = std::tuple<std::string, std::string, std::string, std::string>;

  bool update_priority(Priority& p, const Totals& rx, const Totals& tx, double link_bps, double t);
  bool update_watchdog(const PortKey& key, const std::string& netdev, Watchdog& w,
                       std::optional<double> warnings, std::optional<double> errors, double t);
  bool raise(const std::string& rule, const Priority& p, double onset, double t, double value,
             bool estimate, bool armed);
  bool settle(const IncidentKey& key, bool clear, double t);
  bool port_blinded(const std::string& device, const std::string& port) const;

  DetectorConfig config_;
  std::map<PriorityKey, Priority> priorities_;
  std::map<PortKey, Watchdog> watchdogs_;
  std::map<IncidentKey, Incident> incidents_;
  std::uint64_t polls_ = 0;
};

/// The alert names the fast path raises, all of them rules in rules/builtin/pfc.yaml.
inline constexpr const char* kStormFromNic = "RdmaPfcStormFromNic";
inline constexpr const char* kPushback = "RdmaPfcPushbackFromNetwork";
inline constexpr const char* kDeadlock = "RdmaPfcDeadlockSuspected";
inline constexpr const char* kWatchdogWarning = "RdmaPfcStormWarning";
inline constexpr const char* kWatchdogError = "RdmaPfcStormWatchdogTriggered";

/// The annotation every fast-path finding carries: `detector: fast path`.
inline constexpr const char* kDetectorAnnotation = "detector";
inline constexpr const char* kFastDetector = "fast path";

/// True for a finding the fast path made.
bool is_fast_finding(const Finding& finding);

/// The published findings: the rules' `slow` ones with the fast path's merged in. A fast
/// finding and a rule finding with the same alert and place are one incident: while the fast
/// one is pending or firing it stands for both (it has the earlier onset); once it resolved, a
/// rule finding still firing over its longer window stands, else the fast one.
std::vector<Finding> merge_findings(std::vector<Finding> slow, const std::vector<Finding>& fast);

}  // namespace rdmatop::fast
