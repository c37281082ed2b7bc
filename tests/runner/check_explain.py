"""`gilsan explain NAME` prints docs/explain/NAME.md byte for byte, for every page, also when asked as an
outcome spells it (deadlock:NAME, report:NAME); the list names every page.

usage: check_explain.py GILSAN DOCS_EXPLAIN_DIR
"""
import os
import subprocess
import sys


def main():
    gilsan, folder = sys.argv[1], sys.argv[2]
    problems = []
    names = sorted(name[:-3] for name in os.listdir(folder) if name.endswith(".md"))
    listing = subprocess.run([gilsan, "explain"], capture_output=True, text=True, check=True).stdout
    for name in names:
        with open(os.path.join(folder, name + ".md"), encoding="utf-8") as page:
            expected = page.read()
        kind = "deadlock" if "(deadlock class)" in expected.splitlines()[0] else "report"
        for asked in (name, f"{kind}:{name}"):
            done = subprocess.run([gilsan, "explain", asked], capture_output=True, text=True)
            if done.returncode != 0 or done.stdout != expected:
                problems.append(f"gilsan explain {asked}: exit {done.returncode}, output differs from {name}.md")
        if f"\n  {name} (" not in listing:
            problems.append(f"gilsan explain does not list {name}")
    for problem in problems:
        print(f"CHECK FAILED: {problem}", file=sys.stderr)
    print(f"{len(names)} pages, each printed as written")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
