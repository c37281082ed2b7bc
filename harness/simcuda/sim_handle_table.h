// HandleTable: the live objects of one kind, by the handle the application holds.
//
// A handle is the address of the object; it stays valid exactly as long as the table holds the
// object, so every entry point checks a handle here before it touches the object. Guarded by
// SimDriver::mutex like everything else the driver owns.
#pragma once

#include <memory>
#include <unordered_map>

namespace gilsan::sim {

template <typename T>
class HandleTable {
 public:
  void add(const std::shared_ptr<T>& object) { objects_[object.get()] = object; }

  std::shared_ptr<T> find(const void* handle) const {
    if (handle == nullptr) return nullptr;
    auto it = objects_.find(handle);
    return it == objects_.end() ? nullptr : it->second;
  }

  // Returns the object so the caller can drop the last reference after releasing the lock.
  std::shared_ptr<T> remove(const void* handle) {
    auto it = objects_.find(handle);
    if (it == objects_.end()) return nullptr;
    std::shared_ptr<T> object = std::move(it->second);
    objects_.erase(it);
    return object;
  }

  template <typename Fn>
  void for_each(Fn&& fn) const {
    for (const auto& [handle, object] : objects_) fn(object);
  }

 private:
  std::unordered_map<const void*, std::shared_ptr<T>> objects_;
};

}  // namespace gilsan::sim
