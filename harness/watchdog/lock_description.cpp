#include "harness/watchdog/lock_description.h"

#include "harness/symbols/module_owner.h"
#include "harness/watchdog/hex_format.h"

namespace gilsan::watchdog {
namespace {

std::string base_name(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

const char* what_native_lock_is(board::LockKind kind) {
  switch (kind) {
    case board::LockKind::NativeMutex: return "native mutex";
    case board::LockKind::NativeWriteLock:
    case board::LockKind::NativeReadLock: return "native rwlock";
    case board::LockKind::NativeCondition: return "native condition variable";
    case board::LockKind::Python:
    case board::LockKind::Notification: break;
  }
  return "lock";
}

}  // namespace

std::string describe_lock(const board::LockRecord& lock, const ThreadSnapshot::NativeLockNames* names) {
  if (lock.kind == board::LockKind::Notification) return lock.name.empty() ? "an object at " + hex(lock.id) : lock.name;
  if (!lock.native()) return lock.name.empty() ? hex(lock.id) : lock.name + " (" + hex(lock.id) + ")";
  std::string text = what_native_lock_is(lock.kind);
  if (names == nullptr) return text + " " + hex(lock.id);
  if (!names->lock.symbol.empty()) {
    text += " " + names->lock.symbol + " in " + base_name(names->lock.module) + " (" + hex(lock.id) + ")";
  } else {
    const std::string& module = names->lock.module;
    text += " " + hex(lock.id) + (module.empty() || module == "[heap]" ? " (heap)" : " (in " + base_name(module) + ")");
  }
  return text;
}

const char* lock_wait_words(board::LockKind kind) {
  switch (kind) {
    case board::LockKind::NativeWriteLock: return "waits to write";
    case board::LockKind::NativeReadLock: return "waits to read";
    case board::LockKind::Notification:
    case board::LockKind::NativeCondition: return "waits for a notification of";
    case board::LockKind::Python:
    case board::LockKind::NativeMutex: break;
  }
  return "waits for";
}

std::string describe_call_site(const ThreadSnapshot::NativeLockNames& names) {
  const NativeFrame& site = names.call_site;
  if (site.symbol.empty() && site.module.empty()) return {};
  std::string text = "asked for in " + (site.symbol.empty() ? hex(site.address) : site.symbol) +
                     (site.module.empty() ? "" : " (" + base_name(site.module) + ")");
  if (const std::string owner = symbols::owner_of_module(site.module); !owner.empty()) text += ", a lock of " + owner + "'s own";
  return text;
}

}  // namespace gilsan::watchdog
