#!/usr/bin/env python3
"""run_doc_commands.py itself: a block that fails is named by page and line; a malformed directive
is one line and exit 2; prose blocks are not run."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run(page, build):
    result = subprocess.run([sys.executable, os.path.join(HERE, "run_doc_commands.py"), "--root",
                             os.path.dirname(os.path.dirname(HERE)), "--build", build,
                             os.path.join(HERE, "data", page)], capture_output=True, text=True, timeout=60)
    return result.returncode, result.stdout, result.stderr


def main():
    build = sys.argv[1]
    failures = []

    status, out, err = run("failing_blocks.md", build)
    if status != 1 or "2 blocks ran, 0 skipped, 2 failed" not in out:
        failures.append(f"failing_blocks.md: exit {status}, stdout {out!r}")
    if "failing_blocks.md:4: output lacks 'never printed'" not in err or \
            "failing_blocks.md:8: exit status 3, the page expects 0" not in err:
        failures.append(f"failing_blocks.md: stderr {err!r}")

    status, out, err = run("bad_exit_directive.md", build)
    lines = err.strip().splitlines()
    if status != 2 or len(lines) != 1 or "bad_exit_directive.md:3: 'doc-test: exit zero'" not in lines[0]:
        failures.append(f"bad_exit_directive.md: exit {status}, stderr {err!r}")

    status, out, err = run("detached_directive.md", build)
    if status != 2 or "detached_directive.md:3: a doc-test comment must be just above" not in err:
        failures.append(f"detached_directive.md: exit {status}, stderr {err!r}")

    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
