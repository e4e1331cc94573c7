// The toml11 value type the config subsystem parses into.
//
// toml11 3.x stores tables in std::unordered_map by default, which loses the order in which
// an operator wrote keys. Printing effective args and handing them to plugins should keep that
// order, so tables are parsed into OrderedTable: a vector of key/value pairs with the small
// subset of the std::unordered_map interface toml11 uses. Tables in configuration files are
// small, so linear lookup is fine.
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <toml.hpp>

namespace sh::config {

template <typename Key, typename Value>
class OrderedTable {
 public:
  using key_type = Key;
  using mapped_type = Value;
  using value_type = std::pair<Key, Value>;
  using StorageType = std::vector<value_type>;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = value_type&;
  using const_reference = const value_type&;
  using iterator = typename StorageType::iterator;
  using const_iterator = typename StorageType::const_iterator;

  OrderedTable() = default;
  template <typename InputIt>
  OrderedTable(InputIt first, InputIt last) {
    for (; first != last; ++first) {
      insert(value_type(first->first, first->second));
    }
  }
  OrderedTable(std::initializer_list<value_type> init) : OrderedTable(init.begin(), init.end()) {}

  iterator begin() noexcept { return items_.begin(); }
  iterator end() noexcept { return items_.end(); }
  const_iterator begin() const noexcept { return items_.begin(); }
  const_iterator end() const noexcept { return items_.end(); }
  const_iterator cbegin() const noexcept { return items_.cbegin(); }
  const_iterator cend() const noexcept { return items_.cend(); }

  bool empty() const noexcept { return items_.empty(); }
  size_type size() const noexcept { return items_.size(); }
  void clear() noexcept { items_.clear(); }

  iterator find(const Key& key) {
    return std::find_if(begin(), end(), [&](const value_type& kv) { return kv.first == key; });
  }
  const_iterator find(const Key& key) const {
    return std::find_if(begin(), end(), [&](const value_type& kv) { return kv.first == key; });
  }
  size_type count(const Key& key) const { return find(key) == end() ? 0 : 1; }
  bool contains(const Key& key) const { return find(key) != end(); }

  Value& at(const Key& key) {
    auto it = find(key);
    if (it == end()) {
      throw std::out_of_range("OrderedTable::at");
    }
    return it->second;
  }
  const Value& at(const Key& key) const {
    auto it = find(key);
    if (it == end()) {
      throw std::out_of_range("OrderedTable::at");
    }
    return it->second;
  }
  Value& operator[](const Key& key) {
    auto it = find(key);
    if (it != end()) {
      return it->second;
    }
    items_.emplace_back(key, Value{});
    return items_.back().second;
  }

  std::pair<iterator, bool> insert(const value_type& kv) {
    auto it = find(kv.first);
    if (it != end()) {
      return {it, false};
    }
    items_.push_back(kv);
    return {std::prev(end()), true};
  }
  std::pair<iterator, bool> insert(value_type&& kv) {
    auto it = find(kv.first);
    if (it != end()) {
      return {it, false};
    }
    items_.push_back(std::move(kv));
    return {std::prev(end()), true};
  }
  template <typename... Args>
  std::pair<iterator, bool> emplace(Args&&... args) {
    return insert(value_type(std::forward<Args>(args)...));
  }
  iterator erase(const_iterator pos) { return items_.erase(pos); }
  size_type erase(const Key& key) {
    auto it = find(key);
    if (it == end()) {
      return 0;
    }
    items_.erase(it);
    return 1;
  }

  friend bool operator==(const OrderedTable& a, const OrderedTable& b) {
    return a.items_ == b.items_;
  }
  friend bool operator!=(const OrderedTable& a, const OrderedTable& b) { return !(a == b); }

 private:
  StorageType items_;
};

using TomlValue = toml::basic_value<toml::discard_comments, OrderedTable, std::vector>;

}  // namespace sh::config
