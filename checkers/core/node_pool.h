// NodePool: the nodes of a map's erased entries, kept to make its next entries in.
//
// The model keeps several maps with an entry per host function launched, made by the launching
// thread's events and erased by the callback thread's when the run is done. Each entry was a node
// allocated on one thread and freed on the other, several per host function. A NodePool keeps the
// nodes its map's entries were erased from and makes new entries in them, so a map allocates nothing
// once it has held as many entries at once as it ever will: the pool never holds more nodes than the
// map once held entries. A value made in a kept node is reset by `reset`, which may keep its buffers
// (a string's) for what the caller assigns next. Not thread-safe (the model's lock covers it).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace gilsan::checkers {

template <typename Map>
class NodePool {
 public:
  using Key = typename Map::key_type;
  using Value = typename Map::mapped_type;

  // The entry of `key`; when there is none, made in a kept node (its value reset by `reset`) or, with
  // none kept, allocated.
  template <typename Reset>
  typename Map::iterator find_or_make(Map& map, const Key& key, Reset&& reset) {
    if (auto found = map.find(key); found != map.end()) return found;
    if (kept_.empty()) return map.try_emplace(key).first;
    typename Map::node_type node = std::move(kept_.back());
    kept_.pop_back();
    node.key() = key;
    reset(node.mapped());
    return map.insert(std::move(node)).position;
  }
  typename Map::iterator find_or_make(Map& map, const Key& key) {
    return find_or_make(map, key, [](Value& value) { value = Value{}; });
  }

  // Erases the entry at `position` and keeps its node.
  void erase(Map& map, typename Map::const_iterator position) { kept_.push_back(map.extract(position)); }

  std::size_t kept() const { return kept_.size(); }

 private:
  std::vector<typename Map::node_type> kept_;
};

}  // namespace gilsan::checkers
