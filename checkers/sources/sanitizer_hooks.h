/* The C ABI between the `gilsan` module and a process that runs a Sanitizer (the scenario child of
 * `gilsan run`). The module is also an ordinary extension that runs with no sanitizer at all, so it
 * links nothing of the checkers: it looks the front end up at run time with
 * dlsym(RTLD_DEFAULT, GILSAN_SANITIZER_HOOKS_SYMBOL) and, when found, calls the hooks it returns.
 * Plain C types only, so the two sides need not be built with the same C++ library.
 *
 * Every hook runs on the thread concerned, may be called with or without the GIL, never calls
 * back into the module or the interpreter, and returns quickly (docs/sanitizer.md, "For event
 * sources"). */
#ifndef GILSAN_CHECKERS_SOURCES_SANITIZER_HOOKS_H
#define GILSAN_CHECKERS_SOURCES_SANITIZER_HOOKS_H

#ifdef __cplusplus
extern "C" {
#endif

#define GILSAN_SANITIZER_HOOKS_ABI 4
#define GILSAN_SANITIZER_HOOKS_SYMBOL "gilsan_sanitizer_hooks"

/* One host function of the module: its payload record (the id the lifetime checker follows). */
typedef struct GilsanSanitizerHostFunction {
  unsigned long long id;
  int python;              /* 1: a Python callable run by a GIL-taking trampoline; 0: native */
  const char* description; /* "file.py:LINE name", or NULL */
  unsigned long long context;
  unsigned long long stream;
  int stream_known; /* 0 for a graph host node: the graph may run on any stream */
  /* The userData the module gives the driver with it (the payload's address): joins the driver's
   * record of each run with this description. */
  unsigned long long user_data;
} GilsanSanitizerHostFunction;

/* The module's writer of the calling thread's Python stack: at most `max_frames` frames, innermost
 * first, each "file.py:LINE function" and a '\n', into `buffer` (always NUL-terminated, cut at
 * `size`); returns how many frames it wrote. Call it only on a thread that holds the GIL. */
typedef int (*GilsanPythonStackFunction)(char* buffer, unsigned long size, int max_frames);

typedef struct GilsanSanitizerHooks {
  int abi_version; /* GILSAN_SANITIZER_HOOKS_ABI */
  /* The module opened its driver (is_sim: the simulated one, loaded from `library`). */
  void (*driver_opened)(int is_sim, const char* library);
  /* Around each driver call the module makes. The front end ignores them when a source that sees
   * every call of the process (the simulated driver's observer) is active. */
  void (*call_enter)(const char* entry_point, unsigned long long context, unsigned long long stream,
                     unsigned long long event);
  void (*call_exit)(const char* entry_point, int result);
  /* The GIL as acquire/release pairs of the calling thread. */
  void (*gil_acquire_begin)(void);
  void (*gil_acquired)(void);
  void (*gil_released)(void);
  /* Host functions of the module. `dropped`: the driver will never run it (failed enqueue,
   * sticky error). Begin/end nest inside the driver's own host-function record. */
  void (*host_function_enqueued)(const GilsanSanitizerHostFunction* host_function);
  void (*host_function_dropped)(unsigned long long id);
  void (*host_function_begin)(const GilsanSanitizerHostFunction* host_function);
  void (*host_function_end)(void);
  /* Inside the current host function, before host_function_end: the trampoline did not call the
   * callable, because the interpreter was finalizing. That run is lost. */
  void (*host_function_skipped)(void);
  /* A Python host function of the module raised; `message` is "Type: text". Called on the
   * callback thread, inside the host function, just before the exception goes to
   * sys.unraisablehook. */
  void (*unraisable_in_host_function)(const char* message);
  void (*interpreter_finalizing)(void);
  /* Callables' lifetime (the host-function-lifetime checker). `released`: the module let go of the
   * callable `id` it kept alive for the driver; a trampoline that releases its own callable says so
   * after its host_function_end, so the release is never taken for one during the run.
   * `abandoned_runs`: runs still counted as enqueued will never happen (a failed graph launch).
   * `graph_holds`: `graph` (a graph or an exec, an id unique among live ones) keeps the callable
   * alive and may run it at every launch; `graph_destroyed`: that owner is gone (sent before the
   * driver can run the release it allows). */
  void (*callable_released)(unsigned long long id, int abandoned_runs);
  void (*graph_holds)(unsigned long long graph, const GilsanSanitizerHostFunction* host_function);
  void (*graph_destroyed)(unsigned long long graph);
  /* The module hands over its Python stack writer once, when it finds the hooks: the front end then
   * shows Python stacks in reports, captured only for what a report keeps (docs/sanitizer.md). */
  void (*set_python_stack)(GilsanPythonStackFunction write_stack);
} GilsanSanitizerHooks;

/* What GILSAN_SANITIZER_HOOKS_SYMBOL names: the hooks, or NULL when no sanitizer runs. */
typedef const GilsanSanitizerHooks* (*GilsanSanitizerHooksFunction)(void);

#ifdef __cplusplus
}
#endif

#endif
