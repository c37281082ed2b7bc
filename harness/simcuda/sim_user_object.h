// User objects: a reference count and a destructor, run once on a driver thread (never the caller's)
// after the last reference is released. Graphs and executable graphs hold references, and an
// executable graph gives its references back only after its last launch has completed.
//
// Reference counting does not take the driver mutex, so references can be released from anywhere,
// including while it is held.
#pragma once

#include <cuda.h>

#include <atomic>
#include <memory>
#include <vector>

namespace gilsan::sim {

struct SimUserObject {
  void* pointer = nullptr;
  CUhostFn destroy = nullptr;
  std::atomic<unsigned long long> references{0};
  CUuserObject handle() { return reinterpret_cast<CUuserObject>(this); }
};

// Adds references; false when the object has none left (its destructor is already on its way).
bool retain_user_object(SimUserObject& object, unsigned count);
// Drops references; at zero the destructor is queued for the driver's destructor thread, which then
// also forgets the handle. False when the object held fewer than `count`.
bool release_user_object(const std::shared_ptr<SimUserObject>& object, unsigned count);

// References held by a graph or an executable graph: released when this is destroyed.
class UserObjectReferences {
 public:
  UserObjectReferences() = default;
  UserObjectReferences(const UserObjectReferences&) = delete;
  UserObjectReferences& operator=(const UserObjectReferences&) = delete;
  ~UserObjectReferences();

  // Takes over `count` references the caller already added (or moved in).
  void adopt(const std::shared_ptr<SimUserObject>& object, unsigned count);
  // Gives back `count` held references; false when fewer are held.
  bool release(SimUserObject* object, unsigned count);
  // Adds, for each held object, as many fresh references to `other` (instantiation).
  void copy_into(UserObjectReferences& other) const;

 private:
  struct Held {
    std::shared_ptr<SimUserObject> object;
    unsigned count = 0;
  };
  std::vector<Held> held_;
};

}  // namespace gilsan::sim
