#!/usr/bin/env python3
"""Whether every test that failed in a ctest run failed because LeakSanitizer's own tracer crashed.

usage: lsan_tracer_flakes.py BUILD_DIR   (exit 0: yes, and the tests are printed; 1: no, or unreadable)

LeakSanitizer stops the process's threads with a tracer of its own at exit, and that tracer has
crashed under the load of parallel tests ("Tracer caught signal 11 ... LeakSanitizer has encountered a
fatal error") with every check of the test passed. ci/test.sh runs such tests once more; any other
failure fails the step at once, so a real error that shows only under load is never given a second try.
"""
import re
import sys

SIGNATURES = ("Tracer caught signal", "LeakSanitizer has encountered a fatal error")


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__)
    temporary = argv[0] + "/Testing/Temporary/"
    try:
        with open(temporary + "LastTestsFailed.log") as stream:
            failed = [line.strip().split(":", 1)[1] for line in stream if ":" in line]
        with open(temporary + "LastTest.log", errors="replace") as stream:
            log = stream.read()
    except OSError as error:
        print(f"lsan_tracer_flakes.py: {error}", file=sys.stderr)
        return 1
    # Each test's output runs from its "N/M Testing: NAME" line to the next one.
    sections = {}
    starts = list(re.finditer(r"^\d+/\d+ Testing: (.+)$", log, re.MULTILINE))
    for index, start in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(log)
        sections[start.group(1).strip()] = log[start.start():end]
    if not failed:
        return 1
    for name in failed:
        section = sections.get(name, "")
        if not any(signature in section for signature in SIGNATURES):
            print(f"lsan_tracer_flakes.py: {name} failed for another reason", file=sys.stderr)
            return 1
    print(" ".join(failed))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
