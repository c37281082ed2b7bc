#!/usr/bin/env python3
"""The taxonomy's pictures: ci/docs.sh draws one per deadlock class from a real run into a scratch
folder, each must be a well-formed SVG, and each class page must show the committed picture of the
same name. Exit 3 (skipped) when Graphviz is not installed."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

PICTURE = re.compile(r"!\[[^\]]*\]\(pictures/([a-z-]+)\.svg\)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--build", required=True)
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="gilsan-pictures-")
    try:
        result = subprocess.run([os.path.join(args.root, "ci", "docs.sh"), args.build, scratch],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
        print(result.stdout, end="")
        if result.returncode == 3:
            return 3
        if result.returncode != 0:
            print(f"check_pictures: ci/docs.sh exited {result.returncode}", file=sys.stderr)
            return 1
        drawn = sorted(name[:-len(".svg")] for name in os.listdir(scratch) if name.endswith(".svg"))
        problems = []
        for name in drawn:
            root = ElementTree.parse(os.path.join(scratch, name + ".svg")).getroot()
            if not root.tag.endswith("svg"):
                problems.append(f"{name}.svg: the root element is {root.tag}, not svg")
        explain = os.path.join(args.root, "docs", "explain")
        for name in drawn:
            page = os.path.join(explain, name + ".md")
            with open(page, encoding="utf-8") as text:
                shown = PICTURE.findall(text.read())
            if shown != [name]:
                problems.append(f"{page}: shows {shown or 'no picture'}, not pictures/{name}.svg")
            if not os.path.isfile(os.path.join(explain, "pictures", name + ".svg")):
                problems.append(f"docs/explain/pictures/{name}.svg is not committed (run ci/docs.sh)")
        if not drawn:
            problems.append("ci/docs.sh drew nothing")
        for problem in problems:
            print(f"check_pictures: {problem}", file=sys.stderr)
        print(f"{len(drawn)} pictures drawn, {len(problems)} problems")
        return 1 if problems else 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
