#!/usr/bin/env python3
"""The house's rule, checked: no #include runs back up a layer.

The rooms of harness/ and checkers/, bottom up, are LAYERS below. A source file may include headers of
its own room, of the shared rooms (SHARED: they include nothing of ours), and of rooms below its own.
The order of harness/CMakeLists.txt's gilsan_add_parts (which builds them, earlier parts first) must
agree with LAYERS, and so must checkers/CMakeLists.txt's, so the three cannot drift apart; a room on
disk that is in none of them is an error too, so a new room gets a place.

Usage: check_include_layers.py ROOT. Prints each offending include as FILE:LINE and exits 1.
"""
import pathlib
import re
import sys

# Bottom up. The sanitizer's rooms sit where their includes put them: its core (the deadlock taxonomy,
# the table of synchronizing calls) needs nothing of the harness; its sources read the board, the
# profile, the drivers' observer API and the symbols, and the module calls their hooks; the front end
# every sanitized process starts from is theirs; the watchdog shares the core's vocabulary; the
# injected library and the scenario child run the front end.
LAYERS = [
    "checkers/core",
    "harness/driver", "harness/profile", "harness/board", "harness/nativelocks", "harness/driverhooks", "harness/simcuda",
    "harness/cudashim", "harness/symbols",
    "checkers/sources", "checkers/frontend",
    "harness/pymodule", "harness/watchdog",
    "checkers/inject",
    "harness/scenario", "harness/child", "harness/runner", "harness/reports",
    "harness/probe", "harness/bench", "harness/command",
]
# Rooms any layer may use; they include only themselves.
SHARED = ["harness/text", "harness/cli"]
# Folders that hold no C or C++ (the Python adapters of the conformance scenarios).
NOT_CODE = ["harness/impl"]

INCLUDE = re.compile(r'^\s*#\s*include\s+"((?:harness|checkers)/[A-Za-z0-9_]+)/')
SOURCE_SUFFIXES = {".h", ".hpp", ".c", ".cc", ".cpp", ".inc", ".in"}


def parts_order(cmake_file: pathlib.Path) -> list[str]:
    text = cmake_file.read_text()
    match = re.search(r"gilsan_add_parts\(([^)]*)\)", text)
    if not match:
        raise SystemExit(f"{cmake_file}: no gilsan_add_parts(...) call")
    return match.group(1).split()


def main() -> int:
    root = pathlib.Path(sys.argv[1]).resolve()
    problems = []
    position = {room: index for index, room in enumerate(LAYERS)}
    for tree in ("harness", "checkers"):
        built = [f"{tree}/{part}" for part in parts_order(root / tree / "CMakeLists.txt")]
        listed = [room for room in LAYERS if room.startswith(tree + "/")]
        if built != listed:
            problems.append(f"{tree}/CMakeLists.txt: gilsan_add_parts builds {built}, "
                            f"but {pathlib.Path(__file__).name} layers them {listed}")
        for folder in sorted(p for p in (root / tree).iterdir() if p.is_dir()):
            room = f"{tree}/{folder.name}"
            if room not in position and room not in SHARED and room not in NOT_CODE:
                problems.append(f"{room}: a room with no place in the layers ({pathlib.Path(__file__).name})")
    checked = 0
    for room in LAYERS + SHARED:
        for source in sorted((root / room).rglob("*")):
            if source.suffix not in SOURCE_SUFFIXES or not source.is_file():
                continue
            for number, line in enumerate(source.read_text(errors="replace").splitlines(), start=1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                checked += 1
                target = match.group(1)
                if target == room or (target in SHARED and room not in SHARED):
                    continue
                if room in SHARED:
                    why = f"a shared room includes {target}"
                elif target not in position:
                    why = f"{target} is no room of the layers"
                elif position[target] > position[room]:
                    why = f"{room} includes {target}, a layer above it"
                else:
                    continue
                problems.append(f"{source.relative_to(root)}:{number}: {why}")
    for problem in problems:
        print(problem)
    print(f"{checked} includes of {len(LAYERS)} layers and {len(SHARED)} shared rooms checked: "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
