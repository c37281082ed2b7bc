// `gilsan --help`: the commands, their options and what they do, in one place (command_line.h).
#include <string>

#include "harness/command/command_line.h"
#include "harness/runner/under_command.h"

namespace gilsan {

std::string usage_text() {
  return R"(usage:
  gilsan run SCENARIO.py [--driver auto|real|sim] [--profile FILE] [--timeout SECONDS] [--max-rss SIZE]
                         [--python-env VENV] [--report text|full|json] [-o REPORT_FILE]
                         [--quiet-ms N] [--dot FILE] [--sanitize on|off] [--native-locks on|off]
                         [--impl NAME] [--under 'TOOL ARGS'] [--sarif FILE]
  gilsan run [--driver ...] [--expect OUTCOME] [--timeout SECONDS] [--report ...] [-o FILE]
             [--quiet-ms N] [--dot FILE] [--sanitize on|off] [--native-locks on|off]
             [--under 'TOOL ARGS'] [--sarif FILE] -- COMMAND [ARGS...]
  gilsan suite [PATH...] [--driver auto|real|sim] [--profile FILE] [--timeout SECONDS] [--max-rss SIZE]
                         [--python-env VENV] [--junit FILE] [--json FILE] [--markdown FILE] [--filter TEXT]
                         [--quiet-ms N] [--sanitize on|off] [--native-locks on|off] [--impl NAME,...] [--jobs N]
                         [--shard I/N] [--under 'TOOL ARGS'] [--sarif FILE] [--allow-empty] [--verbose]
  gilsan merge RESULTS.json... [--json FILE] [--junit FILE] [--sarif FILE] [--markdown FILE]
                         [--compare OTHER.json]
  gilsan probe [--driver auto|real|sim] [--profile IN] [-o PROFILE.json] [--markdown FILE]
               [--jobs N] [--enqueue-limit N] [--held-by KIND] [--cudart PATH]
  gilsan probe --diff A.json B.json
  gilsan bench [--driver real|sim] [--impl NAME,...] [--quick] [--python-env VENV] [--json FILE]
               [--markdown FILE] [--svg FILE]
  gilsan explain [CLASS|CHECKER]
  gilsan help [COMMAND]        (also: gilsan COMMAND --help)
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
bench   measures host_launch against the raw driver and its peers, medians of interleaved rounds
        (docs/performance.md; gilsan bench --help).

  --driver       the CUDA driver the gilsan module uses (default auto: real if usable, else sim)
  --profile      the simulated driver's behaviour profile (JSON)
  --timeout      seconds before the scenario is stopped; overrides the header's timeout (default 60)
  --max-rss      kill the scenario (SIGKILL) once the resident memory of its processes passes SIZE
                 (512M, 2G); the outcome is memory-limit
  --expect       (run -- COMMAND) the expected outcome, as a header's expect (default pass)
  --python-env   a virtualenv whose site-packages the scenario sees (same Python version as gilsan's)
  --report       the report's form on stdout or in -o's file: text (default: the cycle's threads, their
                 Python stacks and the program's own native frames), full (every thread and frame), json;
                 each includes the watchdog's hang, crash or timeout report when there is one
  --quiet-ms     the watchdog reports a hang after N ms without progress while a thread is blocked
                 (default 500; 20 times as long under valgrind); a cycle whose every wait is on
                 the board is reported once it held 50 ms
  --dot          write the watchdog's wait-for graph (Graphviz DOT) to FILE when it reports
  --sanitize     run the sanitizer in the scenario (default on; docs/sanitizer.md): its findings
                 become the outcome report:CHECKER; GILSAN_OPTIONS configures it
  --native-locks preload the native-lock interposer (default on; docs/native-locks.md): a thread that
                 waits for a pthread mutex or rwlock shows it, and its holder, in a hang's report
  --junit        also write JUnit XML for CI
  --json         also write the results as JSON (schema gilsan-suite-results/1)
  --markdown     also write the conformance report as Markdown: platform, packages, the matrix, what
                 each implementation gets wrong, why runs were skipped (docs/conformance.md)
  --compare      (merge, repeatable) the same catalogue's results on another driver or driver version
                 (sim and real, or real 580 and real 590), or with other releases of the implementations:
                 the Markdown report adds where they differ
  --impl         the implementations conformance scenarios run against: reference, cupy, cuda-core,
                 cuda-bindings, numba-cuda, or package.module:Class of your own (default: the five;
                 one that is not installed is skipped with the reason)
  --jobs         scenarios run at once (default: as many as CPUs on the simulated driver, 1 on the
                 real one: runs sharing a GPU slow each other's device work past what the watchdog
                 expects of it, which it can take for a hang)
  --shard        run only the I-th of N shares of the suite (CI spreads a suite over machines; gilsan
                 merge joins their --json files)
  --filter       only scenarios whose path contains TEXT
  --allow-empty  (suite) a selection of no run passes; without it, no scenario under the PATHs, a
                 --filter or --shard that leaves none, is a usage error (exit 2)
  --verbose      (suite) a line per skipped run too; without it, one SKIP line per reason with its count
  --under        run the scenario child under a tool, e.g. 'valgrind --tool=helgrind' (split like a shell
                 command, no shell run); the timeout and --quiet-ms are multiplied by )" +
         std::to_string(kUnderTimeoutFactor) + R"(
  --sarif        also write SARIF 2.1.0 for code scanning: one result per failed run's outcome and per
                 sanitizer report, on the scenario's line the report names (the blocking call, the raise)
  --sarif-root   the folder SARIF's URIs are relative to (default: git's top level above the working
                 folder, else the working folder)
  (environment)  GITHUB_ACTIONS=true: suite and merge also print an ::error annotation per failed run;
                 a terminal gets a live progress line, a pipe or file only the finished runs' lines

examples:
  # one scenario on the simulated driver, the report as JSON in a file
  gilsan run scenarios/deadlock/gil_inversion.py --driver sim --report json -o report.json
  # the scenario child under Helgrind, whose output lands in the report's stderr section
  gilsan run scenarios/sanitizer/finished_callback_inversion.py --driver sim --under 'valgrind --tool=helgrind'
  # your own program, with the sanitizer injected and a 5-minute limit
  gilsan run --timeout 300 -- python3 app.py
  # every scenario, with the files CI wants
  gilsan suite scenarios --driver sim --junit junit.xml --sarif gilsan.sarif --json results.json
  # the second of four CI shards
  gilsan suite scenarios --shard 2/4 --json shard2.json
  # the shards' results joined into the files of the whole suite
  gilsan merge shard*.json --junit junit.xml --sarif gilsan.sarif --markdown conformance.md
  # what a deadlock class means and how to fix it
  gilsan explain gil-driver-inversion
  # what the installed driver blocks around host functions, then compared with the committed profile
  gilsan probe --driver real -o now.json
  gilsan probe --diff profiles/h200-580.159.04.json now.json

exit codes:  run, suite, merge, explain                      probe
  0          every outcome matched (skips count as matched)  the probe ran; --diff found no change
  1          at least one outcome did not match              --diff found changes
  2          usage or input error: bad flag or value,        the same
             unreadable file, malformed scenario header
  3          internal error, or a scenario child that        the driver cannot be loaded
             could not start (Python, an --impl adapter)
  4          -                                               the probe could not run or write its output
  130        interrupted (SIGINT, SIGTERM, SIGHUP); the      -
             running scenario was killed
)";
}

}  // namespace gilsan
