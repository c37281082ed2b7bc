"""Runs `gilsan run ... --report json -o REPORT` and checks the sanitizer's part of the run report.

usage: check_sanitizer_report.py --report FILE [checks...] -- GILSAN run SCENARIO [ARGS...]

  --outcome TEXT          the run's outcome, e.g. report:lock-order-cycle or pass
  --checker NAME          a report of this checker must be there (repeatable)
  --only-checkers A,B     the checkers of the reports, in order, are exactly these ("none": no report)
  --cycle KIND,KIND       the first lock-order-cycle's pseudo-locks have exactly these kinds, in order
  --class NAME            the first lock-order-cycle's deadlock class
  --lock-name TEXT        a user-lock of the first lock-order-cycle has a name containing TEXT
  --callback-waits KIND   an edge of that cycle is drawn by a thread running a Python host function
                          of the gilsan module, and waits for a pseudo-lock of this kind
  --main-waits-in CALL    an edge of that cycle is drawn by the main thread inside driver call CALL
  --call CALL             the first report of a non-cycle checker names driver call CALL
  --suppressed N          the sanitizer suppressed N reports
  --unused TEXT           an unused suppression's pattern is TEXT
  --stack-has TEXT        a frame of a report's stack (an edge's, for a cycle) contains TEXT; no stack
                          may be empty (repeatable)
"""
import json
import subprocess
import sys


def fail(message):
    print("CHECK FAILED:", message)
    sys.exit(1)


def main(argv):
    split = argv.index("--")
    checks, command = argv[:split], argv[split + 1:]
    options = {}
    repeated = {"--checker": [], "--stack-has": []}
    for i in range(0, len(checks), 2):
        option, value = checks[i], checks[i + 1]
        if option in repeated:
            repeated[option].append(value)
        else:
            options[option] = value
    report_file = options["--report"]
    command += ["--report", "json", "-o", report_file]
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=100)
    print(done.stdout)
    print(done.stderr, file=sys.stderr)
    with open(report_file) as file:
        run = json.load(file)
    if run.get("status") != "passed":
        fail(f"status is {run.get('status')!r}, outcome {run.get('outcome')!r}, expected {run.get('expected')!r}")
    if done.returncode != 0:
        fail(f"gilsan exited {done.returncode}")
    if "--outcome" in options and run["outcome"] != options["--outcome"]:
        fail(f"outcome is {run['outcome']!r}, expected {options['--outcome']!r}")
    sanitizer = run.get("sanitizer")
    if not sanitizer:
        fail("the run report has no sanitizer part")
    checkers = sanitizer["checkers"]
    document = sanitizer["report"]
    if document is None or document.get("schema") != "gilsan-sanitizer-report/1" or not document.get("complete"):
        fail(f"no complete sanitizer report: {document!r}")
    for checker in repeated["--checker"]:
        if checker not in checkers:
            fail(f"no {checker} report among {checkers}")
    if "--only-checkers" in options:
        expected = [] if options["--only-checkers"] == "none" else options["--only-checkers"].split(",")
        if checkers != expected:
            fail(f"the reports' checkers are {checkers}, expected {expected}")
    reports = document["reports"]
    cycles = [report for report in reports if report["checker"] == "lock-order-cycle"]
    if ("--class" in options or "--lock-name" in options) and not cycles:
        fail("no lock-order-cycle report")
    if "--class" in options and cycles[0]["class"] != options["--class"]:
        fail(f"the cycle's class is {cycles[0]['class']!r}, expected {options['--class']!r}")
    if "--lock-name" in options:
        names = [node["name"] for node in cycles[0]["cycle"] if node["kind"] == "user-lock"]
        if not any(options["--lock-name"] in (name or "") for name in names):
            fail(f"the cycle's user locks are named {names}, expected one with {options['--lock-name']!r}")
    if "--cycle" in options:
        if not cycles:
            fail("no lock-order-cycle report")
        kinds = [node["kind"] for node in cycles[0]["cycle"]]
        if kinds != options["--cycle"].split(","):
            fail(f"the cycle's pseudo-locks are {kinds}, expected {options['--cycle']}")
        edges = cycles[0]["edges"]
        nodes = cycles[0]["cycle"]
        if "--callback-waits" in options:
            wanted = options["--callback-waits"]
            if not any((edge["thread"] or {}).get("host_function")
                       and edge["thread"]["host_function"]["kind"] == "python"
                       and edge["thread"]["host_function"]["implementation"] == "gilsan"
                       and nodes[edge["to"]]["kind"] == wanted for edge in edges):
                fail(f"no edge of a gilsan Python host function's thread waiting for {wanted}: {edges}")
        if "--main-waits-in" in options:
            wanted = options["--main-waits-in"]
            if not any((edge["thread"] or {}).get("name") == "main" and (edge["call"] or {}).get("entry_point") == wanted
                       for edge in edges):
                fail(f"no edge of the main thread in {wanted}: {edges}")
    if "--call" in options:
        others = [report for report in reports if report["checker"] != "lock-order-cycle"]
        if not others or (others[0]["call"] or {}).get("entry_point") != options["--call"]:
            fail(f"the first non-cycle report does not name {options['--call']}: {others[:1]}")
    if "--suppressed" in options and str(document["suppressed"]) != options["--suppressed"]:
        fail(f"suppressed is {document['suppressed']}, expected {options['--suppressed']}")
    if "--unused" in options:
        patterns = [entry["pattern"] for entry in document["unused_suppressions"]]
        if options["--unused"] not in patterns:
            fail(f"unused suppressions are {patterns}, expected {options['--unused']!r} among them")
    if repeated["--stack-has"]:
        stacks = [edge["stack"] for report in reports for edge in report.get("edges") or []]
        stacks += [report["stack"] for report in reports if report["checker"] != "lock-order-cycle"]
        if not stacks or any(not stack for stack in stacks):
            fail(f"a report has no stack: {stacks}")
        frames = [frame for stack in stacks for frame in stack]
        for wanted in repeated["--stack-has"]:
            if not any(wanted in frame for frame in frames):
                fail(f"no frame contains {wanted!r}: {stacks}")
    print("CHECK PASSED")


if __name__ == "__main__":
    main(sys.argv[1:])
