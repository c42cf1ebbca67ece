#include "collector/model/counter_map.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace rdmatop {

namespace {

bool sorted_and_unique(const CounterNames& names) {
  return std::adjacent_find(names.begin(), names.end(),
                            [](const std::string& a, const std::string& b) { return !(a < b); }) ==
         names.end();
}

}  // namespace

std::optional<CounterMap> CounterMap::over_sorted(SharedCounterNames names,
                                                  std::vector<std::uint64_t>& values) {
  const std::size_t name_count = names == nullptr ? 0 : names->size();
  if (name_count != values.size() || (names != nullptr && !sorted_and_unique(*names))) {
    return std::nullopt;
  }
  CounterMap map;
  map.names_ = std::move(names);
  map.values_ = std::move(values);
  return map;
}

CounterMap::CounterMap(SharedCounterNames names, std::vector<std::uint64_t> values)
    : names_(std::move(names)), values_(std::move(values)) {
  const std::size_t name_count = names_ == nullptr ? 0 : names_->size();
  if (name_count != values_.size()) {
    throw std::invalid_argument("CounterMap: " + std::to_string(name_count) + " names for " +
                                std::to_string(values_.size()) + " values");
  }
  if (names_ != nullptr && !sorted_and_unique(*names_)) {
    throw std::invalid_argument("CounterMap: names not sorted and unique");
  }
}

CounterMap::CounterMap(std::initializer_list<std::pair<std::string, std::uint64_t>> entries) {
  CounterMapBuilder builder;
  for (const auto& [name, value] : entries) builder.add(name, value);
  *this = std::move(builder).finish();
}

std::size_t CounterMap::lower_bound(std::string_view name) const {
  if (names_ == nullptr) return 0;
  const auto it = std::lower_bound(names_->begin(), names_->end(), name, std::less<>{});
  return static_cast<std::size_t>(it - names_->begin());
}

std::size_t CounterMap::position(std::string_view name) const {
  const std::size_t at = lower_bound(name);
  return at < size() && (*names_)[at] == name ? at : size();
}

std::uint64_t CounterMap::at(std::string_view name) const {
  const std::size_t index = position(name);
  if (index == size()) throw std::out_of_range("CounterMap: no counter " + std::string(name));
  return values_[index];
}

CounterNames& CounterMap::own_names() {
  // The names may be shared with other ticks' maps (and may have been made const by whoever
  // listed them): a change is made to a copy of this map's own.
  if (!owns_names_ || names_.use_count() > 1) {
    auto copy = names_ == nullptr ? std::make_shared<CounterNames>()
                                  : std::make_shared<CounterNames>(*names_);
    names_ = copy;
    owns_names_ = true;
    return *copy;
  }
  // Made by the branch above (never const) and not shared since.
  return const_cast<CounterNames&>(*names_);  // NOLINT(cppcoreguidelines-pro-type-const-cast)
}

std::size_t CounterMap::insert_at(std::size_t index, std::string_view name, std::uint64_t value) {
  CounterNames& names = own_names();
  names.insert(names.begin() + static_cast<std::ptrdiff_t>(index), std::string(name));
  values_.insert(values_.begin() + static_cast<std::ptrdiff_t>(index), value);
  return index;
}

std::uint64_t& CounterMap::operator[](std::string_view name) {
  return try_emplace(name, 0).first->second;
}

std::pair<CounterMap::iterator, bool> CounterMap::try_emplace(std::string_view name,
                                                              std::uint64_t value) {
  const std::size_t at = lower_bound(name);
  if (at < size() && (*names_)[at] == name) return {{this, at}, false};
  return {{this, insert_at(at, name, value)}, true};
}

std::pair<CounterMap::iterator, bool> CounterMap::insert_or_assign(std::string_view name,
                                                                   std::uint64_t value) {
  auto [it, inserted] = try_emplace(name, value);
  if (!inserted) values_[it.index()] = value;
  return {it, inserted};
}

std::size_t CounterMap::erase(std::string_view name) {
  const std::size_t at = position(name);
  if (at == size()) return 0;
  erase(const_iterator(this, at));
  return 1;
}

CounterMap::iterator CounterMap::erase(const_iterator at) {
  const auto offset = static_cast<std::ptrdiff_t>(at.index());
  CounterNames& names = own_names();
  names.erase(names.begin() + offset);
  values_.erase(values_.begin() + offset);
  return {this, at.index()};
}

void CounterMap::clear() {
  names_.reset();
  owns_names_ = false;
  values_.clear();
}

bool CounterMap::operator==(const CounterMap& other) const {
  if (values_ != other.values_) return false;
  if (empty() || names_ == other.names_) return true;
  return *names_ == *other.names_;
}

CounterMapBuilder::CounterMapBuilder(CounterLayout* layout)
    : layout_(layout), matching_(layout != nullptr && layout->names_ != nullptr) {
  if (matching_) values_.assign(layout_->names_->size(), 0);
}

void CounterMapBuilder::add(std::string_view name, std::uint64_t value) {
  if (matching_) {
    const CounterLayout& layout = *layout_;
    if (added_ < layout.source_order_.size() && layout.source_order_[added_] == name) {
      add_expected(value);
      return;
    }
    leave_layout();
  }
  names_.emplace_back(name);
  values_.push_back(value);
  ++added_;
}

void CounterMapBuilder::add_expected(std::uint64_t value) {
  const std::uint32_t slot = layout_->slot_of_[added_];
  if (slot != CounterLayout::kRepeated) values_[slot] = value;
  ++added_;
}

void CounterMapBuilder::leave_layout() {
  matching_ = false;
  const CounterLayout& layout = *layout_;
  std::vector<std::uint64_t> in_order;
  in_order.reserve(layout.source_order_.size() + 1);
  names_.reserve(layout.source_order_.size() + 1);
  for (std::size_t i = 0; i < added_; ++i) {
    names_.push_back(layout.source_order_[i]);
    const std::uint32_t slot = layout.slot_of_[i];
    // A repeated name's value is never kept (the first one is): any value will do.
    in_order.push_back(slot == CounterLayout::kRepeated ? 0 : values_[slot]);
  }
  values_ = std::move(in_order);
}

CounterMap CounterMapBuilder::finish() && {
  CounterMap map;
  if (matching_ && added_ == layout_->source_order_.size()) {
    map.names_ = layout_->names_;
    map.values_ = std::move(values_);
    return map;
  }
  if (matching_) leave_layout();  // fewer names than last time

  // Sorted by name; a stable sort keeps a repeated name's first occurrence first, so it wins.
  std::vector<std::uint32_t> order(names_.size());
  std::iota(order.begin(), order.end(), 0U);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return names_[a] < names_[b]; });
  auto sorted = std::make_shared<CounterNames>();
  sorted->reserve(order.size());
  std::vector<std::uint32_t> slot_of(names_.size(), CounterLayout::kRepeated);
  for (const std::uint32_t index : order) {
    if (!sorted->empty() && sorted->back() == names_[index]) continue;
    slot_of[index] = static_cast<std::uint32_t>(sorted->size());
    // Without a layout the names are not kept: moved (a later repeat compares with the copy).
    if (layout_ != nullptr) {
      sorted->push_back(names_[index]);
    } else {
      sorted->push_back(std::move(names_[index]));
    }
    map.values_.push_back(values_[index]);
  }
  if (!sorted->empty()) map.names_ = sorted;
  if (layout_ != nullptr) {
    layout_->source_order_ = std::move(names_);
    layout_->slot_of_ = std::move(slot_of);
    layout_->names_ = map.names_;
  }
  return map;
}

}  // namespace rdmatop
