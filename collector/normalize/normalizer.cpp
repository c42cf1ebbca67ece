#include "collector/normalize/normalizer.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "collector/normalize/counter_table.h"
#include "collector/normalize/host_config_series.h"
#include "collector/normalize/probe_series.h"
#include "collector/parse/gid.h"

namespace rdmatop {

namespace {

// ------------------------------------------------------------------------------------------
// The table, expanded once: {p} rows become eight terms ({l} rows four), and rows sharing a
// series and label
// set are gathered into groups of alternatives (see counter_table.h for the combine rules).
// ------------------------------------------------------------------------------------------
struct Term {
  const CounterRow* row = nullptr;
  std::string raw;     ///< the raw name with the priority filled in
  std::string origin;  ///< "hw_counters/np_cnp_sent"
  std::size_t id = 0;  ///< its index among all terms (TermSlots)
};

struct Alternative {
  DriverFamily driver = DriverFamily::any;
  RawSource first_source = RawSource::port_hw_counters;
  std::vector<Term> terms;
  /// The terms' origins joined by '+': the series' origin, one string for every port and tick.
  SharedText origin;
};

struct Group {
  std::string_view series;
  SharedText name;  ///< `series`, one string for every port and tick
  FixedLabel label;
  std::string_view index_label;  ///< "priority" / "lane"; "" when the rows carry no placeholder
  std::string index;             ///< the placeholder's value, "3"
  std::vector<Alternative> alternatives;
};

std::string origin_of(RawSource source, std::string_view raw) {
  std::string origin = to_string(source);
  origin += '/';
  origin += raw;
  return origin;
}

std::vector<Group> build_groups() {
  std::vector<Group> groups;
  std::size_t terms = 0;
  std::map<std::tuple<std::string_view, std::string_view, std::string_view, std::string_view,
                      std::string>,
           std::size_t>
      index;
  for (const CounterRow& row : counter_rows()) {
    const Placeholder* placeholder = placeholder_of(row.raw);
    const std::string_view index_label = placeholder != nullptr ? placeholder->label : "";
    for (int i = 0; i < (placeholder != nullptr ? placeholder->count : 1); ++i) {
      std::string value = placeholder != nullptr ? std::to_string(i) : std::string();
      const auto key =
          std::make_tuple(row.series, row.label.name, row.label.value, index_label, value);
      auto [it, inserted] = index.try_emplace(key, groups.size());
      if (inserted) {
        groups.push_back(Group{
            row.series, SharedText(row.series), row.label, index_label, std::move(value), {}});
      }
      Group& group = groups[it->second];
      std::string raw = placeholder != nullptr ? expand_raw_name(row.raw, i) : std::string(row.raw);
      Term term{&row, raw, origin_of(row.source, raw), terms++};
      // The table's compile-time check guarantees a summed row follows a row of its group.
      if (row.combine == Combine::first_present || group.alternatives.empty()) {
        group.alternatives.push_back(Alternative{row.driver, row.source, {}, {}});
      }
      Alternative& alt = group.alternatives.back();
      alt.origin = SharedText(alt.origin.empty() ? term.origin : alt.origin + "+" + term.origin);
      alt.terms.push_back(std::move(term));
    }
  }
  return groups;
}

const std::vector<Group>& expanded_groups() {
  static const std::vector<Group> groups = build_groups();
  return groups;
}

std::size_t term_count() {
  static const std::size_t count = [] {
    std::size_t n = 0;
    for (const Group& group : expanded_groups()) {
      for (const Alternative& alt : group.alternatives) n += alt.terms.size();
    }
    return n;
  }();
  return count;
}

/// Where each term's raw name sits in one counter map's names: found by a binary search the
/// first time a term is asked of those names, then read by index. The names are shared by the
/// maps of every tick until the driver's set changes (counter_map.h), so a tick looks no name
/// up (issue 18).
constexpr std::int32_t kUnknownSlot = -2;
constexpr std::int32_t kAbsentSlot = -1;
constexpr std::size_t kRawSources = 5;  // RawSource's values
static_assert(static_cast<std::size_t>(RawSource::netdev_statistics) + 1 == kRawSources);

// ------------------------------------------------------------------------------------------
// One port's view of the snapshot.
// ------------------------------------------------------------------------------------------
struct PortView {
  const DeviceSample& device;
  const PortSample& port;
  const NetdevSample* netdev;  ///< nullptr when the port has none or it was not collected
  DriverFamily device_family;  ///< for rows read from the device (driver_families().rdma)
  DriverFamily netdev_family;  ///< for rows read from the netdev (driver_families().netdev)
  bool first_port;             ///< device-scope hw_counters are attributed to this port
  std::uint32_t ordinal;       ///< this port's place in the walk (Observation::series_ports)
  Labels labels;               ///< device, netdev, port: port_base_labels
  /// Per RawSource, the term slots of the map read (TermSlots); null without a cache.
  std::array<std::vector<std::int32_t>*, kRawSources> slots{};
  /// `labels` are those of the port at `ordinal` in the previous snapshot's walk (LabelMemory).
  bool labels_as_before = false;
};

/// device, port, netdev (omitted when empty: Prometheus treats an empty label as absent),
/// sorted by name as series.h requires ("device" < "netdev" < "port").
Labels port_base_labels(const DeviceSample& device, const PortSample& port) {
  Labels labels;
  labels.reserve(3);
  labels.emplace_back("device", device.name);
  if (!port.netdev.empty()) labels.emplace_back("netdev", port.netdev);
  labels.emplace_back("port", std::to_string(port.port));
  return labels;
}

bool netdev_sourced(RawSource source) {
  return source == RawSource::ethtool || source == RawSource::netdev_statistics;
}

bool applies(const PortView& view, DriverFamily driver, RawSource source) {
  if (driver == DriverFamily::any) return true;
  return driver == (netdev_sourced(source) ? view.netdev_family : view.device_family);
}

const CounterMap* map_of(const PortView& view, RawSource source) {
  switch (source) {
    case RawSource::port_hw_counters:
      return &view.port.hw_counters;
    case RawSource::device_hw_counters:
      return view.first_port ? &view.device.hw_counters : nullptr;
    case RawSource::pma_counters:
      return &view.port.counters;
    case RawSource::ethtool:
      return view.netdev != nullptr ? &view.netdev->ethtool : nullptr;
    case RawSource::netdev_statistics:
      return view.netdev != nullptr ? &view.netdev->statistics : nullptr;
  }
  return nullptr;
}

std::optional<std::uint64_t> lookup(const PortView& view, const Term& term) {
  const RawSource source = term.row->source;
  const CounterMap* map = map_of(view, source);
  if (map == nullptr) return std::nullopt;
  std::vector<std::int32_t>* slots = view.slots[static_cast<std::size_t>(source)];
  if (slots == nullptr) {
    const auto it = map->find(term.raw);
    if (it == map->end()) return std::nullopt;
    return it->second;
  }
  std::int32_t& slot = (*slots)[term.id];
  if (slot == kUnknownSlot) {
    const auto it = map->find(term.raw);
    slot = it == map->end() ? kAbsentSlot : static_cast<std::int32_t>(it.index());
  }
  if (slot == kAbsentSlot) return std::nullopt;
  return map->values()[static_cast<std::size_t>(slot)];
}

/// A port series' labels before they are made: the port's labels with the extra labels put in
/// their places (sorted by name, as series.h requires), as views. A series whose labels equal
/// the ones its position had last tick takes those (SeriesSink::add), so the labels of a
/// host's series are made once, when discovery changes them: making them for every series of
/// every tick was a third of normalize at 64 ports (issue 18).
class LabelDraft {
 public:
  LabelDraft(const PortView& view,
             std::initializer_list<std::pair<std::string_view, std::string_view>> extra = {}) {
    for (const auto& [name, value] : view.labels) labels_[size_++] = {name, value};
    for (const auto& label : extra) {
      if (label.first.empty()) continue;
      if (size_ == labels_.size()) throw std::logic_error("LabelDraft: too many labels");
      auto* const end = labels_.data() + size_;
      auto* const at = std::upper_bound(labels_.data(), end, label);
      std::move_backward(at, end, end + 1);
      *at = label;
      ++size_;
    }
  }

  bool matches(const Labels& made) const {
    if (made.size() != size_) return false;
    for (std::size_t i = 0; i < size_; ++i) {
      if (made[i].first != labels_[i].first || made[i].second != labels_[i].second) return false;
    }
    return true;
  }

  Labels make() const {
    Labels labels;
    labels.reserve(size_);
    for (std::size_t i = 0; i < size_; ++i)
      labels.emplace_back(labels_[i].first, labels_[i].second);
    return labels;
  }

 private:
  // device, netdev, port and at most three extras (the counter table's fixed label, its index
  // label, and rdma_saturated's "counter").
  std::array<std::pair<std::string_view, std::string_view>, 6> labels_{};
  std::size_t size_ = 0;
};

/// What a table series' labels are made of (LabelMemory): the port's place in the walk, the
/// counter table's group, and whether the series is the group's saturation gauge. Never 0, the
/// recipe of the series made otherwise.
constexpr std::uint64_t kNoRecipe = 0;
std::uint64_t label_recipe(const PortView& view, std::size_t group, bool saturated) {
  return ((std::uint64_t{view.ordinal} + 1) << 32) | (2 * group + (saturated ? 1 : 0));
}

class SeriesSink {
 public:
  /// `previous`: last tick's series in the order they were made: a series takes over the name,
  /// labels and origin its position had there where they are equal (shared_text.h, labels.h).
  /// `memory`: their recipes (LabelMemory), replaced by this walk's at finish().
  SeriesSink(std::vector<Series>& out, std::span<const SeriesShape> previous = {},
             LabelMemory* memory = nullptr)
      : out_(out), previous_(previous), memory_(memory) {
    if (memory_ != nullptr) recipes_.reserve(memory_->recipes.size());
  }

  /// The walk is over: its recipes are what the next walk's series are matched against.
  void finish() {
    if (memory_ != nullptr) memory_->recipes = std::move(recipes_);
  }

  /// A series of the counter table (its name and origin the same strings at every tick) for
  /// the port of `view`, made from `recipe`: where its position's series last tick had the same
  /// recipe and the port's labels are as they were, it takes that series' labels, else those
  /// `draft()` makes, compared with that series' as `add` does.
  template <class Draft>
  void add_table(const PortView& view, std::uint64_t recipe, const Draft& draft,
                 const SharedText& name, SeriesKind kind, double value, double wrap_modulus,
                 const SharedText& origin, double saturation_value = 0) {
    const std::size_t at = out_.size();
    const bool as_before = view.labels_as_before && memory_ != nullptr && at < previous_.size() &&
                           at < memory_->recipes.size() && memory_->recipes[at] == recipe;
    append(name, as_before ? previous_[at].labels : labels_at(at, draft()), kind, value,
           wrap_modulus, origin, saturation_value, recipe);
  }

  /// The next series are another port's: the labels made for them go to an arena of their own.
  void start_port() { arena_.reset(); }

  /// A series whose name and origin are made here: each is last tick's string where equal.
  void add(std::string_view name, const LabelDraft& labels, SeriesKind kind, double value,
           double wrap_modulus, std::string_view origin, double saturation_value = 0) {
    const std::size_t at = out_.size();
    const SeriesShape* was = at < previous_.size() ? &previous_[at] : nullptr;
    append(was != nullptr && was->name == name ? was->name : SharedText(name),
           labels_at(at, labels), kind, value, wrap_modulus,
           was != nullptr && was->origin == origin ? was->origin : SharedText(origin),
           saturation_value, kNoRecipe);
  }

 private:
  /// New labels, in the port's arena of this walk (LabelArena), made at its first new labels:
  /// a port whose labels are all last tick's makes none.
  SharedLabels made(const LabelDraft& labels) {
    if (!arena_) arena_.emplace();
    return arena_->add(labels.make());
  }

  /// The labels of the series at `at`: last tick's there where equal, else new.
  SharedLabels labels_at(std::size_t at, const LabelDraft& labels) {
    return at < previous_.size() && labels.matches(previous_[at].labels) ? previous_[at].labels
                                                                         : made(labels);
  }

  void append(const SharedText& name, SharedLabels labels, SeriesKind kind, double value,
              double wrap_modulus, const SharedText& origin, double saturation_value,
              std::uint64_t recipe) {
    if (!std::isfinite(value)) return;  // never publish NaN or infinity
    out_.push_back(
        Series{name, std::move(labels), kind, value, wrap_modulus, saturation_value, origin});
    if (memory_ != nullptr) recipes_.push_back(recipe);
  }

  std::vector<Series>& out_;
  std::span<const SeriesShape> previous_;
  LabelMemory* memory_;
  std::vector<std::uint64_t> recipes_;  ///< per series made, its recipe
  std::optional<LabelArena> arena_;     ///< the current port's new labels
};

// ------------------------------------------------------------------------------------------
// Counters from the table.
// ------------------------------------------------------------------------------------------
/// Only the groups whose series `wanted` names and whose rows read ethtool (empty: all of them).
using SeriesFilter = std::span<const std::string_view>;

bool wanted_group(const Group& group, SeriesFilter wanted) {
  return wanted.empty() || std::find(wanted.begin(), wanted.end(), group.series) != wanted.end();
}

void add_table_series(const PortView& view, SeriesSink& sink, SeriesFilter wanted = {}) {
  const std::vector<Group>& groups = expanded_groups();
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const Group& group = groups[g];
    if (!wanted_group(group, wanted)) continue;
    for (const Alternative& alt : group.alternatives) {
      if (!applies(view, alt.driver, alt.first_source)) continue;
      double value = 0;
      bool complete = true;
      for (const Term& term : alt.terms) {
        const std::optional<std::uint64_t> raw = lookup(view, term);
        if (!raw) {
          complete = false;
          break;
        }
        value += static_cast<double>(*raw) * term.row->scale;
      }
      if (!complete) continue;
      // Summed terms share width and scale (checked at compile time): one modulus fits all. A
      // sum of saturating terms has no single ceiling, so only a lone term can saturate.
      const double ceiling = alt.terms.size() == 1 ? saturation_value(*alt.terms.front().row) : 0;
      sink.add_table(
          view, label_recipe(view, g, false),
          [&] {
            return LabelDraft(
                view, {{group.label.name, group.label.value}, {group.index_label, group.index}});
          },
          group.name, SeriesKind::counter, value, wrap_modulus(*alt.terms.front().row), alt.origin,
          ceiling);
      // One gauge per saturating counter, 0 or 1, so that "not saturated" is a reading and
      // not an absence (a rule over it can tell "fine" from "no such counter here").
      if (ceiling > 0) {
        static const SharedText kSaturated("rdma_saturated");
        sink.add_table(
            view, label_recipe(view, g, true),
            [&] {
              return LabelDraft(view, {{group.label.name, group.label.value},
                                       {group.index_label, group.index},
                                       {"counter", group.series}});
            },
            kSaturated, SeriesKind::gauge, value >= ceiling ? 1 : 0, 0, alt.origin);
      }
      break;
    }
  }
}

// ------------------------------------------------------------------------------------------
// Series derived from snapshot fields rather than counter maps.
// ------------------------------------------------------------------------------------------
constexpr double kBytesPerGigabit = 125e6;  // 1e9 bits / 8, as prometheus/procfs parseRate
constexpr double kMsPerSecond = 1e3;

std::size_t routable_gids(const PortSample& port, std::string_view type) {
  return static_cast<std::size_t>(
      std::count_if(port.gids.begin(), port.gids.end(), [&](const GidEntry& gid) {
        if (gid.type != type) return false;
        const GidKind kind = classify_gid(gid.gid);
        return kind == GidKind::ipv4_mapped || kind == GidKind::global;
      }));
}

void add_port_gauges(const PortView& view, SeriesSink& sink) {
  const PortSample& port = view.port;
  if (port.state_id) {
    sink.add("rdma_port_state", LabelDraft(view), SeriesKind::gauge, *port.state_id, 0,
             "port/state");
  }
  if (port.phys_state_id) {
    sink.add("rdma_port_phys_state", LabelDraft(view), SeriesKind::gauge, *port.phys_state_id, 0,
             "port/phys_state");
  }
  if (port.rate_gbps) {
    sink.add("rdma_port_rate_bytes_per_second", LabelDraft(view), SeriesKind::gauge,
             *port.rate_gbps * kBytesPerGigabit, 0, "port/rate");
  }
  // How many hw_counters the port has, for drivers the table maps: with the canonical series it
  // tells "the driver has no such counter" (loss invisible) from "no counters read at all".
  const std::size_t hw_counters =
      port.hw_counters.size() + (view.first_port ? view.device.hw_counters.size() : 0);
  if (view.device_family != DriverFamily::any && hw_counters > 0) {
    sink.add("rdma_port_hw_counters", LabelDraft(view), SeriesKind::gauge,
             static_cast<double>(hw_counters), 0, "hw_counters/");
  }
  if (port.hw_counters_lifespan_ms) {
    sink.add("rdma_hw_counters_lifespan_seconds", LabelDraft(view), SeriesKind::gauge,
             *port.hw_counters_lifespan_ms / kMsPerSecond, 0, "hw_counters/lifespan");
  }
  // GID counts only mean something on RoCE (Ethernet link layer) ports. An empty table on such
  // a port is a real finding (no address on the netdev), so 0 is emitted, not omitted; a table
  // that could not be read emits nothing (absent is not zero).
  if (port.link_layer == "Ethernet") {
    // Type strings from ib_cache_gid_type_str (core/cache.c). A table read only in part still
    // proves the entries it holds; only a zero needs the whole table.
    for (const auto& [series, type] : {std::pair{"rdma_port_roce_v2_gids", "RoCE v2"},
                                       std::pair{"rdma_port_roce_v1_gids", "IB/RoCE v1"}}) {
      const std::size_t routable = routable_gids(port, type);
      if (routable == 0 && !port.gid_table_read) continue;
      sink.add(series, LabelDraft(view), SeriesKind::gauge, static_cast<double>(routable), 0,
               "port/gids");
    }
  }
}

void add_netdev_series(const PortView& view, SeriesSink& sink) {
  if (view.netdev == nullptr) return;
  const NetdevSample& netdev = *view.netdev;
  if (netdev.mtu) {
    sink.add("rdma_netdev_mtu_bytes", LabelDraft(view), SeriesKind::gauge, *netdev.mtu, 0,
             "netdev/mtu");
  }
  if (!netdev.operstate.empty()) {
    // "unknown" is what drivers that do not track carrier report while passing traffic
    // (dummy, lo, some virtual NICs: IF_OPER_UNKNOWN, Documentation/networking/operstates.rst),
    // so it counts as up; "down", "lowerlayerdown", "notpresent", "dormant" do not.
    const bool up = netdev.operstate == "up" || netdev.operstate == "unknown";
    sink.add("rdma_netdev_up", LabelDraft(view), SeriesKind::gauge, up ? 1 : 0, 0,
             "netdev/operstate");
  }
  if (netdev.pause) {
    // ETHTOOL_GPAUSEPARAM rx_pause / tx_pause (`ethtool -a`): 802.3x link-level pause, which
    // stops every priority of the link: a PFC port should not also use it (IEEE 802.1Qbb).
    const std::pair<std::string_view, const std::optional<bool>&> directions[] = {
        {"rx", netdev.pause->rx}, {"tx", netdev.pause->tx}};
    for (const auto& [direction, enabled] : directions) {
      if (!enabled) continue;
      sink.add("rdma_global_pause_enabled", LabelDraft(view, {{"direction", direction}}),
               SeriesKind::gauge, *enabled ? 1 : 0, 0, "ethtool/pause");
    }
  }
  if (netdev.carrier_changes) {
    sink.add("rdma_netdev_carrier_changes_total", LabelDraft(view), SeriesKind::counter,
             static_cast<double>(*netdev.carrier_changes), 0, "netdev/carrier_changes");
  }
}

/// mlx5e emits rx_prio{p}_pause only for priorities with PFC enabled (pfc_en_tx | pfc_en_rx;
/// en_stats.c per_prio PFC group, mlx5 counters.rst), so their presence IS the PFC config.
/// rx_prio0_bytes is always emitted (per_prio traffic group): its presence proves the string
/// set was read, so a missing pause string means "disabled", not "unknown". The configured
/// value from DCB netlink replaces this inference where it was read (host_config_series.cpp).
void add_mlx5_pfc_enabled(const PortView& view, SeriesSink& sink) {
  if (view.netdev == nullptr || view.netdev_family != DriverFamily::mlx5) return;
  if (view.netdev->dcb && view.netdev->dcb->pfc_enabled) return;
  const CounterMap& stats = view.netdev->ethtool;
  if (!stats.contains("rx_prio0_bytes")) return;
  for (int p = 0; p < kPriorityCount; ++p) {
    const std::string raw = expand_raw_name("rx_prio{p}_pause", p);
    sink.add("rdma_pfc_enabled", LabelDraft(view, {{"priority", std::to_string(p)}}),
             SeriesKind::gauge, stats.contains(raw) ? 1 : 0, 0, "ethtool/" + raw);
  }
}

/// Sets view.labels_as_before, and keeps the view's labels for the next walk.
void remember_port_labels(LabelMemory& memory, PortView& view) {
  std::vector<Labels>& last = memory.port_labels;
  if (view.ordinal < last.size() && last[view.ordinal] == view.labels) {
    view.labels_as_before = true;
    return;
  }
  if (view.ordinal >= last.size()) last.resize(view.ordinal + 1);
  last[view.ordinal] = view.labels;
}

/// Calls `visit(view)` for every port of the snapshot (the normalizer's one port walk).
/// `term_slots`: where the views find their maps' term slots; nullptr to look names up.
/// `memory`: the ports' labels of the last walk, replaced by this walk's; nullptr: none.
template <class Visit>
void for_each_port_view(const Snapshot& snapshot, TermSlotCache* term_slots, LabelMemory* memory,
                        Visit&& visit) {
  std::uint32_t ordinal = 0;
  for (const DeviceSample& device : snapshot.devices) {
    if (device.ports.empty()) continue;
    const std::uint32_t first_port =
        std::min_element(device.ports.begin(), device.ports.end(),
                         [](const PortSample& a, const PortSample& b) { return a.port < b.port; })
            ->port;
    for (const PortSample& port : device.ports) {
      const NetdevSample* netdev = find_netdev(snapshot, port.netdev);
      const DriverFamilies families = driver_families(device.driver, netdev);
      PortView view{device,          port,
                    netdev,          families.rdma,
                    families.netdev, port.port == first_port,
                    ordinal++,       port_base_labels(device, port)};
      for (std::size_t s = 0; term_slots != nullptr && s < kRawSources; ++s) {
        const CounterMap* map = map_of(view, static_cast<RawSource>(s));
        if (map == nullptr || map->names() == nullptr) continue;
        view.slots[s] = &term_slots->get(map->names(), [](const CounterNames&) {
          return std::vector<std::int32_t>(term_count(), kUnknownSlot);
        });
      }
      if (memory != nullptr) remember_port_labels(*memory, view);
      visit(std::as_const(view));
    }
  }
  if (memory != nullptr) memory->port_labels.resize(ordinal);
}

}  // namespace

namespace {

/// Every canonical series of the snapshot, in the order the port walk makes them. Sized for as
/// many as last time (the vector grew by doubling, moving every series made so far each time).
/// `previous`: the series of the last snapshot, in the order they were made (SeriesSink).
/// `ports`, when given: per series, the ordinal of the port whose visit made it, or
/// kPortByLabels.
std::vector<Series> emit_series(const Snapshot& snapshot,
                                std::span<const SeriesShape> previous = {},
                                TermSlotCache* term_slots = nullptr,
                                std::vector<std::uint32_t>* ports = nullptr,
                                LabelMemory* memory = nullptr) {
  std::vector<Series> series;
  series.reserve(previous.size());
  if (ports != nullptr) ports->clear();
  SeriesSink sink(series, previous, memory);
  for_each_port_view(snapshot, term_slots, memory, [&](const PortView& view) {
    sink.start_port();
    add_table_series(view, sink);
    add_port_gauges(view, sink);
    add_netdev_series(view, sink);
    add_mlx5_pfc_enabled(view, sink);
    // Every series of a visit carries the port's labels (LabelDraft starts from them).
    if (ports != nullptr) ports->resize(series.size(), view.ordinal);
  });
  sink.finish();
  add_probe_series(snapshot, series);
  add_host_config_series(snapshot, series);
  if (ports != nullptr) ports->resize(series.size(), kPortByLabels);
  return series;
}

/// The positions of `series` in series_key order; of a duplicate key (the same device listed
/// twice) only the first.
std::vector<std::size_t> key_order(const std::vector<Series>& series) {
  std::vector<std::pair<std::string, std::size_t>> keys;
  keys.reserve(series.size());
  for (std::size_t i = 0; i < series.size(); ++i) {
    keys.emplace_back(series_key(series[i].name, series[i].labels), i);
  }
  std::stable_sort(keys.begin(), keys.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::size_t> order;
  order.reserve(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i > 0 && keys[i].first == keys[i - 1].first) continue;
    order.push_back(keys[i].second);
  }
  return order;
}

/// The elements of `items` at the positions `order` lists, moved out in that order: the series
/// and their ports (Observation::series_ports) take the same order.
template <typename T>
std::vector<T> take_in_order(std::vector<T>& items, const std::vector<std::size_t>& order) {
  std::vector<T> sorted;
  sorted.reserve(order.size());
  for (const std::size_t i : order) sorted.push_back(std::move(items[i]));
  return sorted;
}

/// normalize(), and each series' Observation::series_ports into `ports` when given.
std::vector<Series> sorted_series(const Snapshot& snapshot, std::vector<std::uint32_t>* ports) {
  std::vector<Series> series = emit_series(snapshot, {}, nullptr, ports);
  const std::vector<std::size_t> order = key_order(series);
  if (ports != nullptr) *ports = take_in_order(*ports, order);
  return take_in_order(series, order);
}

}  // namespace

std::vector<Series> normalize(const Snapshot& snapshot) {
  return sorted_series(snapshot, nullptr);
}

std::vector<Series> Normalizer::normalize(const Snapshot& snapshot) {
  return normalize(snapshot, nullptr);
}

std::vector<Series> Normalizer::normalize(const Snapshot& snapshot,
                                          std::vector<std::uint32_t>* ports) {
  std::vector<Series> series = emit_series(snapshot, shape_, &term_slots_, ports, &labels_);
  // The labels are mostly last tick's own (SeriesSink): compared by pointer.
  const bool same_shape = series.size() == shape_.size() &&
                          std::equal(series.begin(), series.end(), shape_.begin(),
                                     [](const Series& s, const SeriesShape& k) {
                                       return s.name == k.name && s.labels == k.labels;
                                     });
  if (!same_shape) {
    shape_.clear();
    shape_.reserve(series.size());
    for (const Series& s : series) shape_.push_back(SeriesShape{s.name, s.labels, s.origin});
    order_ = key_order(series);
  }
  if (ports != nullptr) *ports = take_in_order(*ports, order_);
  return take_in_order(series, order_);
}

Observation Normalizer::observe(Snapshot snapshot) {
  Observation observation{std::move(snapshot), {}, {}};
  observation.series = normalize(observation.snapshot, &observation.series_ports);
  return observation;
}

std::vector<Series> normalize_subset(const Snapshot& snapshot,
                                     std::span<const std::string_view> series) {
  std::vector<Series> out;
  SeriesSink sink(out);
  for_each_port_view(snapshot, nullptr, nullptr, [&](const PortView& view) {
    sink.start_port();
    add_table_series(view, sink, series);
  });
  return out;
}

std::vector<std::string> ethtool_raw_names(DriverFamily family,
                                           std::span<const std::string_view> series) {
  std::vector<std::string> names;
  for (const Group& group : expanded_groups()) {
    if (!wanted_group(group, series)) continue;
    for (const Alternative& alt : group.alternatives) {
      if (alt.driver != DriverFamily::any && alt.driver != family) continue;
      for (const Term& term : alt.terms) {
        if (term.row->source == RawSource::ethtool) names.push_back(term.raw);
      }
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

Observation make_observation(Snapshot snapshot) {
  Observation observation{std::move(snapshot), {}, {}};
  observation.series = sorted_series(observation.snapshot, &observation.series_ports);
  return observation;
}

}  // namespace rdmatop
