#!/usr/bin/env python3
"""The peers' pinned releases against their newest ones (issue 35, item 4): the conformance catalogue
for CuPy, cuda.core and cuda.bindings on the simulated driver with each venv (ci/peers-requirements.txt,
the GPU machine's versions; ci/peers-newest-requirements.txt, the newest on PyPI), joined by
`gilsan merge --compare`, whose last section lists every run that ended differently. That section must
be the one docs/conformance-peer-versions.md shows: a release that changes an outcome (a regression, or
a fix) fails this check until the page says so.

usage: check_peer_versions.py GILSAN ROOT PINNED_VENV NEWEST_VENV DOC [--write]

ROOT is the repository: the suites run there on scenarios/conformance, so that the page names scenarios
as the repository does. --write makes DOC anew from this run (the page is generated; do not edit it).
"""
import os
import subprocess
import sys
import tempfile

IMPLEMENTATIONS = "cupy,cuda-core,cuda-bindings"
HEADING = "## Where "


def suite(gilsan, root, venv, json_path):
    command = [gilsan, "suite", "scenarios/conformance", "--impl", IMPLEMENTATIONS, "--python-env", venv, "--driver", "sim",
               "--jobs", "2", "--json", json_path]
    process = subprocess.run(command, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # Exit 1 is a peer's own failures (the catalogue finds them); anything else is ours.
    if process.returncode not in (0, 1) or not os.path.exists(json_path):
        sys.exit(f"CHECK FAILED: {' '.join(command)} exited {process.returncode}:\n{process.stdout[-4000:]}")
    print(process.stdout.splitlines()[-1] if process.stdout else "", flush=True)


def comparison(text):
    """The section that lists the runs whose outcome differs."""
    at = text.find(HEADING)
    return text[at:].strip() if at >= 0 else ""


def main():
    arguments = [argument for argument in sys.argv[1:] if argument != "--write"]
    if len(arguments) != 5:
        sys.exit(__doc__)
    gilsan, root, pinned, newest, doc = (os.path.abspath(argument) for argument in arguments)
    with tempfile.TemporaryDirectory(prefix="gilsan-peer-versions-") as work:
        pinned_json, newest_json = os.path.join(work, "pinned.json"), os.path.join(work, "newest.json")
        suite(gilsan, root, pinned, pinned_json)
        suite(gilsan, root, newest, newest_json)
        markdown = os.path.join(work, "peer-versions.md")
        # The command as the page shows it: with the repository's names, not this run's temporary ones.
        merged = subprocess.run([gilsan, "merge", pinned_json, "--compare", newest_json, "--markdown", markdown],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if merged.returncode not in (0, 1) or not os.path.exists(markdown):
            sys.exit(f"CHECK FAILED: gilsan merge --compare exited {merged.returncode}:\n{merged.stdout}")
        with open(markdown, encoding="utf-8") as stream:
            made = stream.read().replace(pinned_json, "pinned.json").replace(newest_json, "newest.json").replace(
                markdown, os.path.relpath(doc, root))
    if "--write" in sys.argv:
        with open(doc, "w", encoding="utf-8") as stream:
            stream.write(made)
        print(f"wrote {doc}")
        return 0
    try:
        with open(doc, encoding="utf-8") as stream:
            shown = stream.read()
    except OSError as error:
        sys.exit(f"CHECK FAILED: {doc}: {error.strerror}")
    if comparison(made) != comparison(shown):
        print(f"CHECK FAILED: the peers' outcomes between their pinned and newest releases are not what {doc} "
              f"shows; make it anew with\n  {sys.argv[0]} {' '.join(arguments)} --write\n"
              f"this run:\n{comparison(made)}\n\n{doc}:\n{comparison(shown)}")
        return 1
    print(f"{doc}: the same runs differ between the peers' pinned and newest releases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
