/* The C library of scenarios/native: a registry guarded by a pthread mutex, a table guarded by a
 * pthread rwlock and a gate waited for with a condition variable. The first two each have a way to call
 * back into their user while holding their lock (the shape of an allocator's, a logger's or a
 * registry's callbacks in the reports of docs/native-locks.md) and the fixed way, which calls back
 * after letting go. Loaded with ctypes.CDLL, whose calls release the GIL;
 * a callback made with ctypes.CFUNCTYPE takes it again. */
#include <pthread.h>
#include <sched.h>

#define EXPORTED __attribute__((visibility("default")))

typedef void (*native_callback)(void);

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static long registry_entries;
static long table_rows;

/* Calls `callback` with the registry's mutex held: a callback that waits for another thread which
 * needs the registry never returns. */
EXPORTED void registry_call_locked(native_callback callback) {
  pthread_mutex_lock(&registry_lock);
  ++registry_entries;
  callback();
  pthread_mutex_unlock(&registry_lock);
}

/* The fix: the registry's work under the mutex, the callback after it is released. */
EXPORTED void registry_call_unlocked(native_callback callback) {
  pthread_mutex_lock(&registry_lock);
  ++registry_entries;
  pthread_mutex_unlock(&registry_lock);
  callback();
}

/* What a host function calls into: takes the registry's mutex for a moment. */
EXPORTED long registry_count(void) {
  pthread_mutex_lock(&registry_lock);
  const long entries = registry_entries;
  pthread_mutex_unlock(&registry_lock);
  return entries;
}

/* Calls `callback` while writing the table (its rwlock held to write). */
EXPORTED void table_call_writing(native_callback callback) {
  pthread_rwlock_wrlock(&table_lock);
  ++table_rows;
  callback();
  pthread_rwlock_unlock(&table_lock);
}

/* The fix: the write done, then the callback. */
EXPORTED void table_call_after_writing(native_callback callback) {
  pthread_rwlock_wrlock(&table_lock);
  ++table_rows;
  pthread_rwlock_unlock(&table_lock);
  callback();
}

/* A reader: takes the table's rwlock to read for a moment. */
EXPORTED long table_row_count(void) {
  pthread_rwlock_rdlock(&table_lock);
  const long rows = table_rows;
  pthread_rwlock_unlock(&table_lock);
  return rows;
}

/* A gate: closed until someone opens it, waited for with a condition variable (the shape of a library's
 * "wait until initialized" or a pool's "wait for a free buffer"). */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_opened = PTHREAD_COND_INITIALIZER;
static int gate_open_now;

/* Waits, as long as it takes, for gate_open. */
EXPORTED void gate_wait(void) {
  pthread_mutex_lock(&gate_lock);
  while (!gate_open_now) pthread_cond_wait(&gate_opened, &gate_lock);
  pthread_mutex_unlock(&gate_lock);
}

EXPORTED void gate_open(void) {
  pthread_mutex_lock(&gate_lock);
  gate_open_now = 1;
  pthread_cond_broadcast(&gate_opened);
  pthread_mutex_unlock(&gate_lock);
}

/* The GIL-ordered shape: one thread holds the registry's mutex and calls back into Python (which needs
 * the GIL), another holds the GIL and asks for the mutex. A caller that keeps the GIL loads the library
 * with ctypes.PyDLL. The announcement makes the order certain: the caller that holds the mutex waits
 * until the counter is on its way in before it calls back. */
static int registry_announced;
static int registry_counters_coming;

EXPORTED int registry_was_announced(void) { return __atomic_load_n(&registry_announced, __ATOMIC_ACQUIRE); }

static void announce_then_wait_for_a_counter(void) {
  __atomic_store_n(&registry_announced, 1, __ATOMIC_RELEASE);
  while (!__atomic_load_n(&registry_counters_coming, __ATOMIC_ACQUIRE)) sched_yield();
}

/* Holds the mutex from before the announcement to after the callback. */
EXPORTED void registry_call_locked_announced(native_callback callback) {
  pthread_mutex_lock(&registry_lock);
  ++registry_entries;
  announce_then_wait_for_a_counter();
  callback();
  pthread_mutex_unlock(&registry_lock);
}

/* The fix: lets go of the mutex before the announcement and the callback. */
EXPORTED void registry_call_unlocked_announced(native_callback callback) {
  pthread_mutex_lock(&registry_lock);
  ++registry_entries;
  pthread_mutex_unlock(&registry_lock);
  announce_then_wait_for_a_counter();
  callback();
}

/* registry_count, saying first that a counter is on its way. */
EXPORTED long registry_count_announced(void) {
  __atomic_store_n(&registry_counters_coming, 1, __ATOMIC_RELEASE);
  return registry_count();
}
