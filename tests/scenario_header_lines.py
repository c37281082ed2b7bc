"""The '# gilsan: key = value' lines at the top of a scenario, for the test scripts that run scenarios
without gilsan (tests/pymodule/run_scenario_directly.py, tests/transparency/check_transparency.py). The
header's rules are gilsan's (harness/scenario/scenario_header.cpp); this reads only its lines."""
import re

HEADER_LINE = re.compile(r"^#\s*gilsan:\s*(\w+)\s*=\s*(.+?)\s*$")


def header_lines(path):
    """{key: value} of the comment lines before the first line of code."""
    header = {}
    with open(path, encoding="utf-8") as scenario:
        for line in scenario:
            if line.strip() and not line.startswith("#"):
                break
            match = HEADER_LINE.match(line)
            if match:
                header[match.group(1)] = match.group(2)
    return header
