// `gilsan --help`: the commands, their options and what they do, in one place (command_line.h).
#include <string>

#include "harness/runner/command_line.h"

namespace gilsan {

std::string usage_text() {
  return R"(usage:
  gilsan run SCENARIO.py [--driver auto|real|sim] [--profile FILE] [--timeout SECONDS] [--max-rss SIZE]
                         [--python-env VENV] [--report text|json] [-o REPORT_FILE]
                         [--quiet-ms N] [--dot FILE] [--sanitize on|off] [--impl NAME]
  gilsan run [--driver ...] [--expect OUTCOME] [--timeout SECONDS] [--report ...] [-o FILE]
             [--quiet-ms N] [--dot FILE] [--sanitize on|off] -- COMMAND [ARGS...]
  gilsan suite [PATH...] [--driver auto|real|sim] [--profile FILE] [--timeout SECONDS] [--max-rss SIZE]
                         [--python-env VENV] [--junit FILE] [--json FILE] [--markdown FILE] [--filter TEXT]
                         [--quiet-ms N] [--sanitize on|off] [--impl NAME,...] [--jobs N]
                         [--shard I/N]
  gilsan merge RESULTS.json... [--json FILE] [--junit FILE] [--markdown FILE] [--compare OTHER.json]
  gilsan probe [--driver auto|real|sim] [--profile IN] [-o PROFILE.json] [--markdown FILE]
               [--jobs N] [--enqueue-limit N] [--cudart PATH]
  gilsan probe --diff A.json B.json
  gilsan explain [CLASS|CHECKER]
  gilsan --help

run     runs one scenario in a child process with an embedded Python and reports its outcome
        against the scenario's '# gilsan: expect = ...' header. A watchdog supervises the child:
        a hang becomes the outcome deadlock:CLASS (docs/watchdog.md), with its report.
        With -- COMMAND, runs that program as it is (your python and venv, or a native binary)
        under the same watchdog, driver and sanitizer (injected), expecting --expect (default
        pass) and with no timeout unless --timeout gives one.
suite   runs every *.py scenario under each PATH (default: )" +
         default_scenario_folder() + R"(),
        one line each, then "N passed, N failed, N skipped".
merge   joins the --json files of a suite's shards (gilsan suite --shard i/n) into one set of results:
        the matrix, the failures, the summary line, and --json/--junit/--markdown files of the whole.
explain prints what a deadlock class or a sanitizer checker is, a minimal example and how to fix it
        (the pages of docs/explain/); without a name, lists them.
probe   measures what the driver blocks and allows around host functions (docs/probe.md; its own
        exit codes are listed there).

  --driver       the CUDA driver the gilsan module uses (default auto: real if usable, else sim)
  --profile      the simulated driver's behaviour profile (JSON)
  --timeout      seconds before the scenario is stopped; overrides the header's timeout (default 60)
  --max-rss      kill the scenario (SIGKILL) once the resident memory of its processes passes SIZE
                 (512M, 2G); the outcome is memory-limit
  --expect       (run -- COMMAND) the expected outcome, as a header's expect (default pass)
  --python-env   a virtualenv whose site-packages the scenario sees (same Python version as gilsan's)
  --report       the report's form on stdout or in -o's file (default text); it includes the
                 watchdog's hang or crash report (class, cycle, stacks) when there is one
  --quiet-ms     the watchdog reports a hang after N ms without progress while a thread is blocked
                 (default 500; 20 times as long under valgrind)
  --dot          write the watchdog's wait-for graph (Graphviz DOT) to FILE when it reports
  --sanitize     run the sanitizer in the scenario (default on; docs/sanitizer.md): its findings
                 become the outcome report:CHECKER; GILSAN_OPTIONS configures it
  --junit        also write JUnit XML for CI
  --json         also write the results as JSON (schema gilsan-suite-results/1)
  --markdown     also write the conformance report as Markdown: platform, packages, the matrix, what
                 each implementation gets wrong, why runs were skipped (docs/conformance.md)
  --compare      (merge, repeatable) the same catalogue's results on the other driver: the Markdown
                 report adds where the two drivers differ
  --impl         the implementations conformance scenarios run against: reference, cupy, cuda-core,
                 cuda-bindings, numba-cuda, or package.module:Class of your own (default: the five;
                 one that is not installed is skipped with the reason)
  --jobs         scenarios run at once (default: as many as CPUs on the simulated driver, 1 on the
                 real one: runs sharing a GPU slow each other's device work past what the watchdog
                 expects of it, which it can take for a hang)
  --shard        run only the I-th of N shares of the suite (CI spreads a suite over machines; gilsan
                 merge joins their --json files)
  --filter       only scenarios whose path contains TEXT

exit codes:
  0    every outcome matched its expectation (skipped scenarios count as matched)
  1    at least one outcome did not match
  2    usage or input error: bad flag, unreadable file, malformed scenario header
  3    internal error in gilsan itself, or a scenario child that could not start (Python, an --impl adapter)
  130  gilsan was interrupted (SIGINT, SIGTERM, SIGHUP); the running scenario was killed
)";
}

}  // namespace gilsan
