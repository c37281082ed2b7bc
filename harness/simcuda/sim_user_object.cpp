#include "harness/simcuda/sim_user_object.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "harness/simcuda/sim_callback_thread.h"
#include "harness/simcuda/sim_driver.h"

namespace gilsan::sim {
namespace {

// The driver thread that runs user-object destructors, in the order their last references went.
// Its mutex is a leaf: it may be taken with the driver mutex held, never the other way round.
struct DestructorThread {
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::shared_ptr<SimUserObject>> pending;
  bool started = false;
};

DestructorThread& destructor_thread() {
  static auto* thread = new DestructorThread();  // leaked with the rest of the driver's state
  return *thread;
}

void run_destructors() {
  auto& self = destructor_thread();
  std::unique_lock<std::mutex> lock(self.mutex);
  for (;;) {
    self.wake.wait(lock, [&] { return !self.pending.empty(); });
    std::shared_ptr<SimUserObject> object = std::move(self.pending.front());
    self.pending.pop_front();
    lock.unlock();
    {
      // Calls made from a destructor follow the same profile table as calls from a host function.
      CallbackScopeGuard scope(CallbackScope{nullptr, nullptr});
      object->destroy(object->pointer);
    }
    {
      auto& driver = SimDriver::instance();
      Lock driver_lock(driver.mutex);
      driver.user_objects.remove(object.get());
    }
    object.reset();
    lock.lock();
  }
}

void schedule_destructor(const std::shared_ptr<SimUserObject>& object) {
  auto& self = destructor_thread();
  std::lock_guard<std::mutex> guard(self.mutex);
  self.pending.push_back(object);
  if (!self.started) {
    std::thread(run_destructors).detach();
    self.started = true;
  }
  self.wake.notify_one();
}

}  // namespace

bool retain_user_object(SimUserObject& object, unsigned count) {
  unsigned long long now = object.references.load();
  do {
    if (now == 0) return false;
  } while (!object.references.compare_exchange_weak(now, now + count));
  return true;
}

bool release_user_object(const std::shared_ptr<SimUserObject>& object, unsigned count) {
  unsigned long long now = object->references.load();
  do {
    if (now < count) return false;
  } while (!object->references.compare_exchange_weak(now, now - count));
  if (now == count) schedule_destructor(object);
  return true;
}

UserObjectReferences::~UserObjectReferences() {
  for (Held& held : held_) release_user_object(held.object, held.count);
}

void UserObjectReferences::adopt(const std::shared_ptr<SimUserObject>& object, unsigned count) {
  auto it = std::find_if(held_.begin(), held_.end(), [&](const Held& held) { return held.object == object; });
  if (it != held_.end()) {
    it->count += count;
  } else {
    held_.push_back(Held{object, count});
  }
}

bool UserObjectReferences::release(SimUserObject* object, unsigned count) {
  auto it = std::find_if(held_.begin(), held_.end(), [&](const Held& held) { return held.object.get() == object; });
  if (it == held_.end() || it->count < count) return false;
  it->count -= count;
  std::shared_ptr<SimUserObject> released = it->object;
  if (it->count == 0) held_.erase(it);
  return release_user_object(released, count);
}

void UserObjectReferences::copy_into(UserObjectReferences& other) const {
  for (const Held& held : held_) {
    if (retain_user_object(*held.object, held.count)) other.adopt(held.object, held.count);
  }
}

}  // namespace gilsan::sim
