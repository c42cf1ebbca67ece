// Raw counters of one source, by their source-native name: names sorted and shared, values in
// an array.
//
// A host's counter names change only when its drivers' sets do (a device re-created, a channel
// count changed), while their values change every tick. A std::map rebuilt every tick made a
// tree node and a name string per counter and freed them a tick later: two allocations and two
// frees per value, the largest single cost of a collection (issue 18). Here the names are one
// sorted vector shared by every tick's map of that object (a source keeps it between ticks in
// a CounterLayout, or a caching FileSource keeps a directory's listing), and a tick allocates
// one array of values.
//
// The interface is the part of std::map the collectors and outputs use: sorted iteration giving
// `.first` (the name) and `.second` (the value), heterogeneous find, insertion. Absent means
// "not provided": a name is in the map only with a value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rdmatop {

/// Counter names, sorted (std::less<>) and unique.
using CounterNames = std::vector<std::string>;
using SharedCounterNames = std::shared_ptr<const CounterNames>;

class CounterMap {
 public:
  using key_type = std::string;
  using mapped_type = std::uint64_t;
  using size_type = std::size_t;

  /// What iteration gives: the name and the value (writable through a non-const map).
  template <bool Const>
  struct Entry {
    const std::string& first;
    std::conditional_t<Const, const std::uint64_t&, std::uint64_t&> second;
  };

  template <bool Const>
  class Iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using difference_type = std::ptrdiff_t;
    using value_type = Entry<Const>;
    using reference = Entry<Const>;
    struct pointer {
      Entry<Const> entry;
      const Entry<Const>* operator->() const { return &entry; }
    };
    using Map = std::conditional_t<Const, const CounterMap, CounterMap>;

    Iterator() = default;
    Iterator(Map* map, std::size_t index) : map_(map), index_(index) {}
    operator Iterator<true>() const { return {map_, index_}; }  // NOLINT: iterator -> const

    reference operator*() const { return {(*map_->names_)[index_], map_->values_[index_]}; }
    pointer operator->() const { return {**this}; }
    Iterator& operator++() {
      ++index_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++index_;
      return before;
    }
    Iterator& operator--() {
      --index_;
      return *this;
    }
    Iterator operator--(int) {
      Iterator before = *this;
      --index_;
      return before;
    }
    Iterator& operator+=(difference_type n) {
      index_ += static_cast<std::size_t>(n);
      return *this;
    }
    Iterator operator+(difference_type n) const { return Iterator(*this) += n; }
    difference_type operator-(const Iterator& other) const {
      return static_cast<difference_type>(index_) - static_cast<difference_type>(other.index_);
    }
    bool operator==(const Iterator& other) const { return index_ == other.index_; }
    auto operator<=>(const Iterator& other) const { return index_ <=> other.index_; }
    /// The entry's position in the map (and in names()).
    std::size_t index() const { return index_; }

   private:
    Map* map_ = nullptr;
    std::size_t index_ = 0;
  };
  using iterator = Iterator<false>;
  using const_iterator = Iterator<true>;

  CounterMap() = default;
  /// `names` sorted and unique (checked: a violation throws std::invalid_argument), one value
  /// per name.
  CounterMap(SharedCounterNames names, std::vector<std::uint64_t> values);
  /// The map over `names` when they are sorted and unique with one value each (`values` is
  /// then moved from); nullopt otherwise, `values` untouched. Checked once: for a caller with a
  /// fallback (a listing from a FileSource), where the constructor would throw.
  static std::optional<CounterMap> over_sorted(SharedCounterNames names,
                                               std::vector<std::uint64_t>& values);
  /// Like std::map's: a repeated name keeps its first value.
  CounterMap(std::initializer_list<std::pair<std::string, std::uint64_t>> entries);

  std::size_t size() const { return values_.size(); }
  bool empty() const { return values_.empty(); }
  iterator begin() { return {this, 0}; }
  iterator end() { return {this, size()}; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

  iterator find(std::string_view name) { return {this, position(name)}; }
  const_iterator find(std::string_view name) const { return {this, position(name)}; }
  bool contains(std::string_view name) const { return position(name) != size(); }
  std::size_t count(std::string_view name) const { return contains(name) ? 1 : 0; }
  /// The value; std::out_of_range when the name is absent.
  std::uint64_t at(std::string_view name) const;

  /// The value of `name`, inserted as 0 first when absent.
  std::uint64_t& operator[](std::string_view name);
  /// Inserts when absent; an existing value is kept.
  std::pair<iterator, bool> try_emplace(std::string_view name, std::uint64_t value);
  std::pair<iterator, bool> emplace(std::string_view name, std::uint64_t value) {
    return try_emplace(name, value);
  }
  std::pair<iterator, bool> insert_or_assign(std::string_view name, std::uint64_t value);
  /// Each entry inserted when absent.
  void insert(std::initializer_list<std::pair<std::string, std::uint64_t>> entries) {
    for (const auto& [name, value] : entries) try_emplace(name, value);
  }
  std::size_t erase(std::string_view name);
  iterator erase(const_iterator at);
  void clear();

  /// The names, sorted; nullptr when empty. A map built from the same layout as another shares
  /// the same vector.
  const SharedCounterNames& names() const { return names_; }
  const std::vector<std::uint64_t>& values() const { return values_; }

  bool operator==(const CounterMap& other) const;

 private:
  friend class CounterMapBuilder;
  /// Index of `name`, or size() when absent.
  std::size_t position(std::string_view name) const;
  /// Index where `name` is or would be inserted.
  std::size_t lower_bound(std::string_view name) const;
  /// The names to change in place: copied first when another map shares them.
  CounterNames& own_names();
  std::size_t insert_at(std::size_t index, std::string_view name, std::uint64_t value);

  SharedCounterNames names_;
  bool owns_names_ = false;  ///< names_ was made by own_names(): changeable when not shared
  std::vector<std::uint64_t> values_;
};

/// One object's counter names as its source listed them last time, in the source's order, with
/// where each landed in the sorted map. A source that lists the same names in the same order
/// again (an `ethtool -S` dump, a netlink reply) builds its next map by comparing each name
/// with the one remembered, allocating no name. Keep one per object (per netdev, per port).
class CounterLayout {
 public:
  /// The shared sorted names of the last map built through this layout; nullptr before.
  const SharedCounterNames& names() const { return names_; }

 private:
  friend class CounterMapBuilder;
  static constexpr std::uint32_t kRepeated = UINT32_MAX;  ///< a name listed before: dropped
  CounterNames source_order_;
  std::vector<std::uint32_t> slot_of_;  ///< per source_order_ entry: index in names_
  SharedCounterNames names_;
};

/// Builds a CounterMap from counters in a source's order (any order; a repeated name keeps its
/// first value, as std::map::try_emplace does).
class CounterMapBuilder {
 public:
  /// `layout`: the object's names from last time, updated by finish(); nullptr to sort afresh.
  explicit CounterMapBuilder(CounterLayout* layout = nullptr);

  void add(std::string_view name, std::uint64_t value);
  /// The name the layout lists next, or an empty view once the names stopped matching it (or
  /// without a layout, or past its end). A parser that finds this name next in its input can
  /// take it with add_expected() and skip its checks of the name: the name passed them when the
  /// layout was made, so a layout must only ever be used with one parser.
  std::string_view expected_name() const {
    return matching_ && added_ < layout_->source_order_.size()
               ? std::string_view(layout_->source_order_[added_])
               : std::string_view();
  }
  /// add(expected_name(), value) without comparing the name again; only while expected_name()
  /// is not empty.
  void add_expected(std::uint64_t value);
  /// Counters added so far, repeated names included.
  std::size_t added() const { return added_; }
  CounterMap finish() &&;

 private:
  /// The names stop matching the layout: the ones matched so far are copied out.
  void leave_layout();

  CounterLayout* layout_;
  bool matching_;
  std::size_t added_ = 0;
  std::vector<std::uint64_t> values_;  ///< matching: by sorted slot; else in source order
  CounterNames names_;                 ///< not matching: every name so far, in source order
};

/// Something derived from a names vector (the positions of the names a table reads, a listing
/// without one file), made once per vector and kept while a map still holds that vector. Maps
/// built from one layout share their names, so the work per name is done once per change of
/// names, not once per tick. Not thread-safe: one per user.
template <class T>
class PerNames {
 public:
  /// The value for `names` (not null), made by `make(const CounterNames&)` the first time.
  template <class Make>
  T& get(const SharedCounterNames& names, Make&& make) {
    auto [it, inserted] = entries_.try_emplace(names.get());
    // An expired entry at this address was another vector's, freed since.
    if (!inserted && !it->second.names.expired()) return it->second.value;
    it->second = Entry{names, make(*names)};
    if (inserted) prune();  // entries only grow on a change of names: drop the dead then
    return it->second.value;
  }
  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::weak_ptr<const CounterNames> names;
    T value;
  };
  void prune() {
    std::erase_if(entries_, [](const auto& entry) { return entry.second.names.expired(); });
  }
  std::unordered_map<const CounterNames*, Entry> entries_;
};

}  // namespace rdmatop
