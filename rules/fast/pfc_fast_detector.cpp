#include "rules/fast/pfc_fast_detector.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace rdmatop::fast {

namespace {

// IEEE 802.1Qbb: a PFC frame pauses a priority for up to 65535 quanta of 512 bit times.
constexpr double kMaxPauseBits = 65535.0 * 512.0;
constexpr double kBitsPerByte = 8;
constexpr double kUsPerSecond = 1e6;
// Float slack for comparing elapsed simulated times (a 100 ms stall summed from 0.1 s polls).
constexpr double kEpsilonS = 1e-6;

// Rounded, not truncated: a time summed from 100 ms polls sits a hair off its millisecond.
std::int64_t to_ms(double t_s) {
  return std::llround(t_s * 1e3);
}

Labels sorted(Labels labels) {
  std::sort(labels.begin(), labels.end());
  return labels;
}

struct RuleFacts {
  const char* name;
  const char* severity;
  const char* direction;  ///< the direction label the rule's expression keeps
  bool suspected;
};

RuleFacts facts_of(const std::string& rule) {
  if (rule == kStormFromNic) return {kStormFromNic, "critical", "tx", false};
  if (rule == kPushback) return {kPushback, "warning", "rx", false};
  return {kDeadlock, "critical", "rx", true};
}

std::string percent(double share) {
  return std::to_string(static_cast<int>(std::lround(share * 100))) + "%";
}

struct Texts {
  std::string summary, description, remediation;
};

Texts texts_of(const std::string& rule, const std::string& place, double value, bool estimate,
               double detection_s) {
  const std::string how = estimate ? " (estimated from pause frames x 65535 quanta at the link "
                                     "rate: the driver has no pause-duration counter, so this is "
                                     "an upper bound)"
                                   : "";
  const std::string held =
      "for at least " + std::to_string(static_cast<int>(std::lround(detection_s * 1e3))) + " ms";
  if (rule == kStormFromNic) {
    return {"This NIC is pausing the network on " + place,
            "Fast path: the NIC sent pause " + percent(value) + " of the last poll" + how + ", " +
                held +
                ", while nothing arrived on the priority: the host cannot drain its "
                "receive buffer (the storm signature of the switch PFC watchdogs). A "
                "pause storm spreads upstream.",
            "Check the host receive path (PCIe stalls, rdma_out_of_buffer_total, driver "
            "health). Make sure the NIC storm watchdog (ethtool --set-tunable <if> "
            "pfc-prevention-tout) and the switch PFC watchdog are enabled."};
  }
  if (rule == kPushback) {
    return {"The network pauses " + place,
            "Fast path: the peer paused this port " + percent(value) +
                " of the time on the priority" + how +
                " (over the pushback window, or a full stall " + held +
                " with nothing sent): the switch is congested towards its destinations and "
                "pushes back.",
            "Look for the congested egress on the switch (incast, a slow receiver, a storming "
            "NIC elsewhere). Check that ECN marking happens before PFC."};
  }
  return {"Suspected PFC deadlock on " + place,
          "Fast path: the priority was paused in both directions" + how + " " + held +
              ", nothing moved either way and the pause never lifted: the host-side signature "
              "of a cyclic buffer dependency; one host cannot prove it.",
          "Confirm on the switches (the same priority frozen along a cycle, PFC watchdog or "
          "deadlock-detection events); break it with the switch PFC watchdog."};
}

Evidence evidence(Labels labels, double value) {
  Evidence e;
  e.labels = sorted(std::move(labels));
  e.value = value;
  return e;
}

std::optional<double> delta(std::optional<double> now, std::optional<double> before) {
  if (!now || !before) return std::nullopt;
  return *now - *before;
}

bool went_back(const std::optional<double>& now, const std::optional<double>& before) {
  return now && before && *now < *before;
}

}  // namespace

const char* to_string(PauseMeasure measure) {
  switch (measure) {
    case PauseMeasure::none:
      return "none";
    case PauseMeasure::duration:
      return "duration";
    case PauseMeasure::frames:
      return "frames";
  }
  return "none";
}

PfcFastDetector::PfcFastDetector(DetectorConfig config) : config_(config) {}

bool PfcFastDetector::observe(const std::vector<Series>& series, std::int64_t t_us) {
  ++polls_;
  const double t = static_cast<double>(t_us) / kUsPerSecond;
  struct Inputs {
    Totals rx, tx;
    std::string netdev;
  };
  std::map<PriorityKey, Inputs> inputs;
  struct PortInputs {
    std::optional<double> warnings, errors, link_bps;
    std::string netdev;
  };
  std::map<PortKey, PortInputs> ports;
  for (const Series& s : series) {
    const std::string& device = label_value(s.labels, "device");
    const std::string& port = label_value(s.labels, "port");
    if (s.name == "rdma_pause_storm_events_total") {
      PortInputs& in = ports[{device, port}];
      in.netdev = label_value(s.labels, "netdev");
      (label_value(s.labels, "level") == "error" ? in.errors : in.warnings) = s.value;
      continue;
    }
    if (s.name == "rdma_port_rate_bytes_per_second") {
      ports[{device, port}].link_bps = s.value;
      continue;
    }
    const std::string& priority = label_value(s.labels, "priority");
    if (priority.empty()) continue;
    Inputs& in = inputs[{device, port, priority}];
    in.netdev = label_value(s.labels, "netdev");
    Totals& totals = label_value(s.labels, "direction") == "tx" ? in.tx : in.rx;
    if (s.name == "rdma_pfc_pause_seconds_total") {
      totals.seconds = s.value;
    } else if (s.name == "rdma_pfc_pause_frames_total") {
      totals.frames = s.value;
    } else if (s.name == "rdma_pfc_pause_transitions_total") {
      totals.transitions = s.value;
    } else if (s.name == "rdma_priority_packets_total") {
      totals.packets = s.value;
    }
  }
  bool changed = false;
  // The watchdog first: an incident it blinds must know before its priority is judged.
  for (auto& [key, in] : ports) {
    if (!in.warnings && !in.errors) continue;
    changed =
        update_watchdog(key, in.netdev, watchdogs_[key], in.warnings, in.errors, t) || changed;
  }
  for (auto& [key, in] : inputs) {
    Priority& p = priorities_[key];
    if (p.device.empty()) {
      std::tie(p.device, p.port, p.priority) = key;
      p.netdev = in.netdev;
    }
    const auto port = ports.find({p.device, p.port});
    const double link_bps =
        port != ports.end() && port->second.link_bps ? *port->second.link_bps : 0;
    changed = update_priority(p, in.rx, in.tx, link_bps, t) || changed;
  }
  // Resolved findings age out.
  for (auto it = incidents_.begin(); it != incidents_.end();) {
    const Finding& f = it->second.finding;
    const bool expired =
        f.state == FindingState::resolved &&
        static_cast<double>(f.resolved_at) / 1e3 + config_.resolved_retention_s < t;
    it = expired ? incidents_.erase(it) : std::next(it);
  }
  return changed;
}

bool PfcFastDetector::update_watchdog(const PortKey& key, const std::string& netdev, Watchdog& w,
                                      std::optional<double> warnings, std::optional<double> errors,
                                      double t) {
  bool changed = false;
  const std::optional<double> now[2] = {warnings, errors};
  std::optional<double>* before[2] = {&w.warnings, &w.errors};
  const char* rules[2] = {kWatchdogWarning, kWatchdogError};
  const char* levels[2] = {"warning", "error"};
  const char* severities[2] = {"warning", "critical"};
  for (int i = 0; i < 2; ++i) {
    const IncidentKey ikey{rules[i], key.first, key.second, ""};
    const auto rise = delta(now[i], *before[i]);
    if (rise && *rise > 0 && w.last_t >= 0) {
      w.last_rise_s[i] = t;
      auto it = incidents_.find(ikey);
      if (it == incidents_.end() || it->second.finding.state == FindingState::resolved) {
        Incident inc;
        Finding& f = inc.finding;
        f.rule = rules[i];
        f.group = "rdmatop-pfc";
        f.severity = parse_severity(severities[i]);
        Labels labels{{"alertname", rules[i]}, {"device", key.first}, {"port", key.second},
                      {"level", levels[i]},    {"layer", "network"},  {"severity", severities[i]}};
        if (!netdev.empty()) labels.emplace_back("netdev", netdev);
        f.labels = sorted(std::move(labels));
        f.state = FindingState::firing;
        // The counter rose somewhere in the last interval: its start is the onset bound.
        f.active_since = to_ms(w.last_t);
        f.fired_at = to_ms(t);
        f.value = *rise;
        const std::string place = key.first + " port " + key.second;
        f.annotations = {
            {"summary", i == 0 ? "Pause asserted too long on " + place
                               : "PFC storm watchdog disabled pause on " + place},
            {"description",
             std::string("Fast path: rdma_pause_storm_events_total{level=\"") + levels[i] +
                 "\"} rose: " +
                 (i == 0 ? "the NIC held PFC pause long enough to reach its storm warning "
                           "threshold."
                         : "the NIC sent pause continuously and its watchdog stopped PFC TX, so "
                           "lossless traffic to this host can now be dropped.")},
            {"remediation",
             "Find why the host receive path stalled (PCIe back-pressure, driver or firmware "
             "hang, dmesg)."},
            {kDetectorAnnotation, kFastDetector}};
        f.evidence.push_back(evidence({{"__name__", "rdma_pause_storm_events_total"},
                                       {"device", key.first},
                                       {"level", levels[i]},
                                       {"port", key.second}},
                                      *now[i]));
        incidents_[ikey] = std::move(inc);
        changed = true;
      } else {
        it->second.finding.value += *rise;
      }
    }
    *before[i] = now[i];
    // Quiet for watchdog_quiet_s: the watchdog is no longer acting.
    auto it = incidents_.find(ikey);
    if (it != incidents_.end() && it->second.finding.state == FindingState::firing &&
        w.last_rise_s[i] >= 0 && t - w.last_rise_s[i] >= config_.watchdog_quiet_s - kEpsilonS) {
      it->second.finding.state = FindingState::resolved;
      it->second.finding.resolved_at = to_ms(t);
      changed = true;
    }
  }
  w.last_t = t;
  return changed;
}

bool PfcFastDetector::port_blinded(const std::string& device, const std::string& port) const {
  const auto it = incidents_.find(IncidentKey{kWatchdogError, device, port, ""});
  return it != incidents_.end() && it->second.finding.state == FindingState::firing;
}

bool PfcFastDetector::update_priority(Priority& p, const Totals& rx, const Totals& tx,
                                      double link_bps, double t) {
  const double dt = t - p.last_t;
  const bool first = p.last_t < 0 || dt <= 0;
  auto reset_seen = [](const Totals& now, const Totals& before) {
    return went_back(now.seconds, before.seconds) || went_back(now.frames, before.frames) ||
           went_back(now.transitions, before.transitions) || went_back(now.packets, before.packets);
  };
  p.measure = rx.seconds || tx.seconds ? PauseMeasure::duration
              : rx.frames || tx.frames ? PauseMeasure::frames
                                       : PauseMeasure::none;
  if (first || reset_seen(rx, p.rx.last) || reset_seen(tx, p.tx.last)) {
    // A restart of the counters (driver reload, a link flap resetting the port counters) says
    // nothing about pause: start again from these values, keeping any incident as it is.
    for (Direction* d : {&p.rx, &p.tx}) {
      d->stall_since = -1;
      d->stalled = false;
    }
    p.rx.last = rx;
    p.tx.last = tx;
    p.window.clear();
    p.last_t = t;
    return false;
  }
  if (p.measure == PauseMeasure::none) {
    p.last_t = t;
    return false;
  }
  const bool estimate = p.measure == PauseMeasure::frames;
  double paused[2] = {0, 0};
  Direction* dirs[2] = {&p.rx, &p.tx};
  const Totals* now[2] = {&rx, &tx};
  for (int i = 0; i < 2; ++i) {
    Direction& d = *dirs[i];
    const Totals& n = *now[i];
    if (auto s = delta(n.seconds, d.last.seconds)) {
      paused[i] = *s;
    } else if (auto f = delta(n.frames, d.last.frames); f && link_bps > 0) {
      paused[i] = *f * kMaxPauseBits / (link_bps * kBitsPerByte);
    }
    paused[i] = std::clamp(paused[i], 0.0, dt);
    const auto packets = delta(n.packets, d.last.packets);
    d.progress_known = packets.has_value();
    d.progress = packets && *packets / dt >= config_.progress_packets_per_s;
    const auto transitions = delta(n.transitions, d.last.transitions);
    d.transitions_rose = transitions && *transitions > 0;
  }
  // What a direction's pause holds back: rx pause stops what we send (tx packets), tx pause
  // what the peer sends us (rx packets).
  for (int i = 0; i < 2; ++i) {
    Direction& d = *dirs[i];
    const Direction& held = *dirs[1 - i];
    const double previous_partial = d.stalled ? 0 : d.occupancy * dt;
    d.occupancy = paused[i] / dt;
    const bool stall = d.occupancy >= config_.stall_occupancy - kEpsilonS &&
                       !(held.progress_known && held.progress);
    if (stall && !d.stalled) {
      // The stall began in this interval or, when the previous one was partly paused, that
      // pause ran into this one: back-date the onset by it (contiguous pause assumed).
      d.stall_since = p.last_t - std::min(previous_partial, dt);
    }
    if (!stall) d.stall_since = -1;
    d.stalled = stall;
    d.last = *now[i];
  }
  p.window.push_back(Interval{dt, paused[0], paused[1]});
  double span = 0, rx_paused = 0, tx_paused = 0;
  for (const Interval& iv : p.window) {
    span += iv.dt;
    rx_paused += iv.rx_paused;
    tx_paused += iv.tx_paused;
  }
  while (p.window.size() > 1 && span - p.window.front().dt >= config_.pushback_window_s) {
    span -= p.window.front().dt;
    rx_paused -= p.window.front().rx_paused;
    tx_paused -= p.window.front().tx_paused;
    p.window.erase(p.window.begin());
  }
  const double rx_window = span > 0 ? rx_paused / span : 0;
  const double tx_window = span > 0 ? tx_paused / span : 0;
  const bool window_full = span >= config_.pushback_window_s - kEpsilonS;
  p.last_t = t;

  auto held_for = [&](const Direction& d) {
    return d.stalled && t - d.stall_since >= config_.detection_s - kEpsilonS;
  };
  bool changed = false;
  const bool deadlock =
      p.rx.stalled && p.tx.stalled && !p.rx.transitions_rose && !p.tx.transitions_rose;
  const bool storm = p.tx.stalled && p.rx.occupancy < config_.pushback_occupancy;
  const bool pushback_stall = p.rx.stalled && p.tx.occupancy < config_.pushback_unless_tx;
  // The rule's `unless` on tx pause holds over the window and for the last interval: a deadlock
  // starting now has a window still mostly healthy on tx, and is not pushback. And the pause
  // must still be on: a deadlock that just broke leaves a window full of rx pause behind it.
  // With long polls (1 s) the interval a deadlock starts or ends in is partly paused both ways:
  // a port pausing its peer half the time or more is not being pushed back on.
  const bool pushback_window =
      window_full && rx_window >= config_.pushback_occupancy &&
      p.rx.occupancy >= config_.pushback_occupancy && p.tx.occupancy < config_.pushback_occupancy &&
      tx_window < config_.pushback_unless_tx && p.tx.occupancy < config_.pushback_unless_tx;
  if (deadlock) {
    changed = raise(kDeadlock, p, std::max(p.rx.stall_since, p.tx.stall_since), t,
                    std::min(p.rx.occupancy, p.tx.occupancy), estimate,
                    held_for(p.rx) && held_for(p.tx)) ||
              changed;
  }
  if (storm) {
    changed =
        raise(kStormFromNic, p, p.tx.stall_since, t, p.tx.occupancy, estimate, held_for(p.tx)) ||
        changed;
  }
  if (pushback_stall || pushback_window) {
    // The window's onset: the start of the run of intervals at the pushback occupancy that
    // ends now (the whole window when the run is broken inside it).
    double run_span = 0;
    for (auto iv = p.window.rbegin(); iv != p.window.rend(); ++iv) {
      if (iv->rx_paused < config_.pushback_occupancy * iv->dt) break;
      run_span += iv->dt;
    }
    const double onset = pushback_stall ? p.rx.stall_since : t - (run_span > 0 ? run_span : span);
    changed = raise(kPushback, p, onset, t, pushback_stall ? p.rx.occupancy : rx_window, estimate,
                    pushback_window || held_for(p.rx)) ||
              changed;
  }
  // Clear: under the clear occupancy in the relevant direction(s). Strong when traffic moved on
  // the priority (or packets cannot be seen): then restoration_s resolves. Pause that stops
  // while nothing moves (the NIC watchdog disabled PFC, the link is down) is weak and only
  // resolves after watchdog_quiet_s.
  const bool moved =
      !(p.rx.progress_known || p.tx.progress_known) || p.rx.progress || p.tx.progress;
  const bool blinded = port_blinded(p.device, p.port);
  auto settle_one = [&](const char* rule, bool below, bool strong) {
    const IncidentKey key{rule, p.device, p.port, p.priority};
    auto it = incidents_.find(key);
    if (it == incidents_.end()) return;
    Incident& inc = it->second;
    if (blinded) inc.blinded = true;
    if (inc.finding.state != FindingState::firing) return;
    if (!below) {
      inc.clear_since = -1;
      return;
    }
    if (inc.clear_since < 0) inc.clear_since = p.last_t - dt;
    const double clear_for = t - inc.clear_since;
    const bool done = (strong && !inc.blinded && clear_for >= config_.restoration_s - kEpsilonS) ||
                      clear_for >= config_.watchdog_quiet_s - kEpsilonS;
    if (done) {
      inc.finding.state = FindingState::resolved;
      inc.finding.resolved_at = to_ms(t);
      changed = true;
    }
  };
  settle_one(kStormFromNic, !storm && p.tx.occupancy < config_.clear_occupancy,
             moved && (!blinded || p.rx.progress));
  settle_one(kPushback,
             !pushback_stall && !pushback_window && p.rx.occupancy < config_.clear_occupancy, true);
  settle_one(kDeadlock,
             !deadlock && (p.rx.occupancy < config_.clear_occupancy ||
                           p.tx.occupancy < config_.clear_occupancy),
             moved);
  // A pending incident (stalled, not yet for the detection time) that stopped never fired.
  for (const char* rule : {kStormFromNic, kPushback, kDeadlock}) {
    const bool active = (rule == kStormFromNic && storm) ||
                        (rule == kPushback && (pushback_stall || pushback_window)) ||
                        (rule == kDeadlock && deadlock);
    const auto it = incidents_.find(IncidentKey{rule, p.device, p.port, p.priority});
    if (!active && it != incidents_.end() && it->second.finding.state == FindingState::pending) {
      incidents_.erase(it);
      changed = true;
    }
  }
  return changed;
}

bool PfcFastDetector::raise(const std::string& rule, const Priority& p, double onset, double t,
                            double value, bool estimate, bool armed) {
  const IncidentKey key{rule, p.device, p.port, p.priority};
  auto it = incidents_.find(key);
  if (it != incidents_.end() && it->second.finding.state != FindingState::resolved) {
    Finding& f = it->second.finding;
    f.value = value;
    it->second.clear_since = -1;
    if (f.state == FindingState::pending && armed) {
      f.state = FindingState::firing;
      f.fired_at = to_ms(t);
      return true;
    }
    return false;
  }
  const RuleFacts facts = facts_of(rule);
  Incident inc;
  inc.onset_s = onset;
  Finding& f = inc.finding;
  f.rule = facts.name;
  f.group = "rdmatop-pfc";
  f.severity = parse_severity(facts.severity);
  Labels labels{{"alertname", facts.name},   {"device", p.device},           {"port", p.port},
                {"priority", p.priority},    {"direction", facts.direction}, {"layer", "network"},
                {"severity", facts.severity}};
  if (!p.netdev.empty()) labels.emplace_back("netdev", p.netdev);
  if (facts.suspected) labels.emplace_back("confidence", "suspected");
  f.labels = sorted(std::move(labels));
  f.state = armed ? FindingState::firing : FindingState::pending;
  f.active_since = to_ms(onset);
  f.fired_at = armed ? to_ms(t) : 0;
  f.value = value;
  const std::string place = "priority " + p.priority + " (" + p.device + " port " + p.port + ")";
  const Texts texts = texts_of(rule, place, value, estimate, config_.detection_s);
  f.annotations = {
      {"summary", texts.summary},
      {"description", texts.description},
      {"remediation", texts.remediation},
      {kDetectorAnnotation, kFastDetector},
      {"pause_measure", estimate ? "estimated from frames x quanta" : "pause duration counter"}};
  const char* series = estimate ? "rdma_pfc_pause_frames_total" : "rdma_pfc_pause_seconds_total";
  for (const auto& [direction, d] : {std::pair{"rx", &p.rx}, std::pair{"tx", &p.tx}}) {
    const std::optional<double>& total = estimate ? d->last.frames : d->last.seconds;
    if (!total) continue;
    f.evidence.push_back(evidence({{"__name__", series},
                                   {"device", p.device},
                                   {"direction", direction},
                                   {"port", p.port},
                                   {"priority", p.priority}},
                                  *total));
  }
  incidents_[key] = std::move(inc);
  return true;
}

std::vector<Finding> PfcFastDetector::findings() const {
  std::vector<Finding> out;
  out.reserve(incidents_.size());
  for (const auto& [key, inc] : incidents_) out.push_back(inc.finding);
  return out;
}

bool is_fast_finding(const Finding& finding) {
  return annotation(finding, kDetectorAnnotation) == kFastDetector;
}

namespace {

std::tuple<std::string, std::string, std::string, std::string> place_of(const Finding& f) {
  return {f.rule, label_value(f.labels, "device"), label_value(f.labels, "port"),
          label_value(f.labels, "priority") + "/" + label_value(f.labels, "level")};
}

int state_rank(FindingState s) {
  return s == FindingState::firing ? 0 : s == FindingState::pending ? 1 : 2;
}

}  // namespace

std::vector<Finding> merge_findings(std::vector<Finding> slow, const std::vector<Finding>& fast) {
  if (fast.empty()) return slow;  // the rules' own order stands
  for (const Finding& f : fast) {
    auto same = std::find_if(slow.begin(), slow.end(), [&](const Finding& s) {
      return !is_lifetime(s) && place_of(s) == place_of(f);
    });
    if (same == slow.end()) {
      slow.push_back(f);
    } else if (f.state != FindingState::resolved || same->state != FindingState::firing) {
      *same = f;
    }
  }
  // Most severe first, active before resolved, lifetime evidence last (as the Diagnoser orders).
  std::stable_sort(slow.begin(), slow.end(), [](const Finding& a, const Finding& b) {
    if (is_lifetime(a) != is_lifetime(b)) return !is_lifetime(a);
    const bool a_resolved = a.state == FindingState::resolved;
    const bool b_resolved = b.state == FindingState::resolved;
    if (a_resolved != b_resolved) return !a_resolved;
    if (a.severity != b.severity) return a.severity > b.severity;
    return state_rank(a.state) < state_rank(b.state);
  });
  return slow;
}

}  // namespace rdmatop::fast
