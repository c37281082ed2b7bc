#!/usr/bin/env python3
"""Builds gilsan's wheel from the source tree with its pinned backend (pyproject.toml,
scikit-build-core), installs it into a fresh virtualenv beside the pinned pytest and nothing else, and
checks gilsan from there with no variable pointing at it (docs/installing.md, "pip"):

- the wheel holds the gilsan program, the module and its plugin, the simulated driver,
  libgilsan_inject.so, the scenarios and the profiles, and registers the plugin as a pytest11 entry point;
- VENV/bin/gilsan runs a scenario in that virtualenv (its sys.prefix, its packages) and the installed
  scenarios pass on the simulated driver;
- every pytest of the virtualenv loads the plugin, which stays off until asked: a plain `pytest` runs as
  without gilsan, a gilsan option without --gilsan is a usage error, and `-p gilsan.pytest` or a conftest's
  pytest_plugins naming it asks too;
- `pytest --gilsan`: check_plugin.py's checks, in both isolation modes.

    check_wheel.py --builder VENV --source ROOT --build-dir DIR [--cases cupy --driver real --site-packages DIR]

VENV is ci/wheel-venv.sh's (the backend, and VENV/wheelhouse with the pinned pytest's wheels); DIR keeps
the wheel's CMake build between runs (a first build is about a minute on two cores). On a GPU machine
(ci/gpu-run.sh OUT wheel), --cases cupy --driver real runs check_plugin.py's CuPy cases on the real driver,
with CuPy from --site-packages (a .pth in the fresh virtualenv; pip installs nothing else). Exit status: 0 all
as expected, 1 not, 77 skipped (no VENV: no package registry when it was made; the reason is printed).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import zipfile

from check_plugin import finish  # this script's own folder

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77
# What `pip install` of the wheel must put at the environment's root (the wheel's data), as globs of
# paths relative to it; and in site-packages.
DATA_MEMBERS = ["bin/gilsan", "lib/libgilsan_inject.so", "lib/libgilsan_simcuda.so", "lib/gilsan/driver/libcuda.so.1",
                "lib/gilsan/python/gilsan.*.so", "lib/gilsan/python/gilsan/pytest.py",
                "share/gilsan/scenarios/deadlock/", "share/gilsan/profiles/", "share/gilsan/impl/"]
PLATLIB_MEMBERS = ["gilsan.pth", "gilsan_entry_point.py"]
# A scenario that says which Python environment the installed gilsan runs it in.
WHERE_SCENARIO = """# gilsan: expect = pass
import sys
import pytest  # the virtualenv's own
print("gilsan-prefix=" + sys.prefix)
"""
PLAIN_TEST = "def test_plain():\n    assert True\n"


def run(command, **options):
    """A command's exit status and its output (stdout and stderr together)."""
    started = time.monotonic()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                          **options)
    print(f"$ {' '.join(command)}\n(exit {done.returncode}, {time.monotonic() - started:.1f} s)")
    return done.returncode, done.stdout


def cmake_version(source):
    with open(os.path.join(source, "CMakeLists.txt"), encoding="utf-8") as stream:
        found = re.search(r"project\(gilsan VERSION ([0-9.]+)", stream.read())
    return found.group(1) if found else None


def check_members(wheel, version):
    """What the wheel lacks of DATA_MEMBERS and PLATLIB_MEMBERS, and its entry point."""
    problems = []
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        data = f"gilsan-{version}.data/data/"
        for member in DATA_MEMBERS:
            pattern = re.escape(data + member).replace(r"\*", "[^/]*")
            if not any(re.match(pattern, name) for name in names):
                problems.append(f"the wheel has no {data}{member}")
        program = archive.getinfo(data + "bin/gilsan") if data + "bin/gilsan" in names else None
        if program is not None and not (program.external_attr >> 16) & 0o111:
            problems.append("bin/gilsan is not executable in the wheel")
        problems += [f"the wheel has no {member}" for member in PLATLIB_MEMBERS if member not in names]
        entry_points = f"gilsan-{version}.dist-info/entry_points.txt"
        text = archive.read(entry_points).decode() if entry_points in names else ""
        if not re.search(r"\[pytest11\]\s*\ngilsan\s*=\s*gilsan_entry_point\s", text):
            problems.append(f"no pytest11 entry point gilsan = gilsan_entry_point in {entry_points}: {text!r}")
    return problems


def site_packages(venv):
    """The virtualenv's site-packages folder (lib/pythonX.Y/site-packages)."""
    found = subprocess.run([os.path.join(venv, "bin", "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                           capture_output=True, text=True, check=True)
    return found.stdout.strip()


def check_installed(venv, folder, environment):
    """The program and the plugin's switch, run from the virtualenv."""
    problems = []
    gilsan = os.path.join(venv, "bin", "gilsan")
    scenario = os.path.join(folder, "where.py")
    with open(scenario, "w", encoding="utf-8") as stream:
        stream.write(WHERE_SCENARIO)
    status, output = run([gilsan, "run", "--driver", "sim", "--report", "full", scenario], cwd=folder, env=environment)
    if status != 0 or f"gilsan-prefix={venv}\n" not in output:
        problems.append(f"gilsan run of a scenario: exit {status}, expected 0 and sys.prefix {venv}:\n{output}")
    scenarios = os.path.join(venv, "share", "gilsan", "scenarios", "deadlock")
    status, output = run([gilsan, "suite", "--driver", "sim", scenarios], cwd=folder, env=environment)
    print(output.rstrip().splitlines()[-1] if output.strip() else "")
    if status != 0:
        problems.append(f"gilsan suite of the installed {scenarios}: exit {status}:\n{output}")

    tests = os.path.join(folder, "plain")
    os.mkdir(tests)
    with open(os.path.join(tests, "test_plain.py"), "w", encoding="utf-8") as stream:
        stream.write(PLAIN_TEST)
    pytest = [os.path.join(venv, "bin", "python"), "-m", "pytest", "-p", "no:cacheprovider", "-q"]
    status, output = run(pytest + ["test_plain.py"], cwd=tests, env=environment)
    if status != 0 or "1 passed" not in output or "gilsan" in output or "warning" in output:
        problems.append(f"plain pytest with the plugin installed: exit {status}, expected 1 passed and no word "
                        f"of gilsan, no warning:\n{output}")
    status, output = run(pytest + ["--gilsan-driver=sim", "test_plain.py"], cwd=tests, env=environment)
    if status != 4 or "add --gilsan" not in output:
        problems.append(f"--gilsan-driver without --gilsan: exit {status}, expected 4 (usage error) saying "
                        f"'add --gilsan':\n{output}")
    # Named by a conftest, as without pip: asked for.
    named_by_conftest = os.path.join(folder, "conftest-named")
    os.mkdir(named_by_conftest)
    with open(os.path.join(named_by_conftest, "conftest.py"), "w", encoding="utf-8") as stream:
        stream.write('pytest_plugins = ["gilsan.pytest"]\n')
    with open(os.path.join(named_by_conftest, "test_plain.py"), "w", encoding="utf-8") as stream:
        stream.write(PLAIN_TEST)
    status, output = run(pytest + ["--gilsan-driver=sim", "test_plain.py"], cwd=named_by_conftest, env=environment)
    if status != 0 or "1 passed" not in output:
        problems.append(f"a conftest's pytest_plugins = ['gilsan.pytest']: exit {status}, expected 1 passed:\n{output}")
    # Named with -p, as without pip: asked for, and the same plugin as the entry point's (not loaded twice).
    status, output = run(pytest + ["-p", "gilsan.pytest", "--gilsan-driver=sim", "test_plain.py"], cwd=tests,
                         env=environment)
    if status != 0 or "1 passed" not in output:
        problems.append(f"-p gilsan.pytest: exit {status}, expected 1 passed:\n{output}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--builder", required=True, help="ci/wheel-venv.sh's virtualenv")
    parser.add_argument("--source", required=True, help="gilsan's source tree (pyproject.toml)")
    parser.add_argument("--build-dir", required=True, help="where the wheel's CMake build is kept")
    parser.add_argument("--cases", choices=("sim", "cupy"), default="sim", help="check_plugin.py's cases")
    parser.add_argument("--driver", choices=("sim", "real", "auto"), default="sim", help="check_plugin.py's driver")
    parser.add_argument("--site-packages", help="a folder of packages the fresh virtualenv also sees (CuPy)")
    args = parser.parse_args()
    builder_python = os.path.join(args.builder, "bin", "python")
    wheelhouse = os.path.join(args.builder, "wheelhouse")
    if not (os.access(builder_python, os.X_OK) and os.path.isdir(wheelhouse)):
        print(f"SKIPPED: no {builder_python} with {wheelhouse} (ci/wheel-venv.sh; no package registry?)")
        return SKIP
    version = cmake_version(args.source)
    if version is None:
        print(f"FAIL: no 'project(gilsan VERSION ...)' in {args.source}/CMakeLists.txt")
        return 1
    # Nothing of this run's own gilsan reaches the installed one.
    environment = {name: value for name, value in os.environ.items()
                   if name != "PYTHONPATH" and not name.startswith("GILSAN_")}
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    environment.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))

    with tempfile.TemporaryDirectory(prefix="gilsan-wheel-check-") as folder:
        print(f"check_wheel: building the wheel in {args.build_dir} (a first build takes minutes)", flush=True)
        dist = os.path.join(folder, "dist")
        status, output = run([builder_python, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps",
                              "--disable-pip-version-check", f"--config-settings=build-dir={args.build_dir}", "-w", dist,
                              args.source], env=environment)
        wheels = sorted(os.listdir(dist)) if os.path.isdir(dist) else []
        if status != 0 or len(wheels) != 1:
            print(output)
            print(f"FAIL: pip wheel: exit {status}, wheels {wheels} (expected one)")
            return 1
        wheel = os.path.join(dist, wheels[0])
        tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
        problems = []
        if not re.fullmatch(rf"gilsan-{re.escape(version)}-cp\d+-cp\d+-linux_\w+\.whl", wheels[0]):
            problems.append(f"wheel name {wheels[0]}: expected gilsan-{version}-cpXY-cpXY-linux_ARCH.whl ({tag} here)")
        problems += check_members(wheel, version)

        # Made without ensurepip (not every Python has it); the builder's pip installs into it, as its own would.
        venv = os.path.join(folder, "venv")
        status, output = run([builder_python, "-m", "venv", "--without-pip", venv], env=environment)
        if status == 0:
            # --ignore-installed: what the builder has itself (packaging) must still go into the virtualenv.
            status, output = run([builder_python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                                  "--ignore-installed", "--no-index", "--find-links", wheelhouse, "--prefix", venv,
                                  wheel, "-r", os.path.join(args.source, "ci", "pytest-requirements.txt")],
                                 env=environment)
        if status != 0:
            print(output)
            print("FAIL: could not make the virtualenv and install the wheel into it")
            return 1
        if args.site_packages:
            with open(os.path.join(site_packages(venv), "gilsan-check-extra.pth"), "w", encoding="utf-8") as stream:
                stream.write(os.path.abspath(args.site_packages) + "\n")
        problems += check_installed(venv, folder, environment)
        status, output = run([sys.executable, os.path.join(HERE, "check_plugin.py"), "--python",
                              os.path.join(venv, "bin", "python"), "--installed", "--cases", args.cases,
                              "--driver", args.driver],
                             env=environment)
        print(output)
        if status != 0:
            problems.append(f"check_plugin.py --installed: exit {status}")
    return finish("check_wheel", problems)


if __name__ == "__main__":
    sys.exit(main())
