"""gilsan's pytest plugin: ``pytest --gilsan`` once pip installed it, else ``pytest -p gilsan.pytest``
(docs/pytest-plugin.md).

Tests run in a child under ``gilsan run -- python -m pytest``: the watchdog lives outside the tests'
process (a deadlocked process cannot report its own hang), and the sanitizer is injected into the child
before CUDA initialises (CUDA_INJECTION64_PATH, loaded at cuInit). By default one child runs the whole
session (gilsan/pytest_session.py and gilsan/pytest_worker.py); with ``--gilsan-isolate=test`` each test
runs alone in a child of its own (this file): the child runs the one test with this plugin too, in child
mode, and hands its own pytest reports back through a file. Either way the parent relays the child's
reports, and turns gilsan's verdict (a sanitizer report, a classified hang, a crash) into the test's
failure, or into a warning for sanitizer reports with ``--gilsan-reports=warn``.

This file is a submodule of the ``gilsan`` extension module, which sets its ``__path__`` to the
``gilsan`` folder beside it (harness/pymodule/package_path.h); the folder has no ``__init__.py`` on
purpose, so that ``import gilsan`` still finds the extension.
"""

import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import warnings

import pytest

# prctl, resolved before any fork: stop_with_parent runs between fork and exec, where importing or
# loading a library is not safe.
_prctl = ctypes.CDLL(None, use_errno=True).prctl
_PR_SET_PDEATHSIG = 1

# Set by the parent for a test's child: where the child writes its pytest reports.
RESULT_VARIABLE = "GILSAN_PYTEST_RESULT"
# The extra seconds the parent waits past gilsan's own --timeout before it stops gilsan itself: gilsan
# needs them to kill the child's process group and write its report.
GRACE_SECONDS = 30


class GilsanReportWarning(UserWarning):
    """A sanitizer report of a test, with --gilsan-reports=warn."""


# The options that mean nothing while the plugin is off (their destinations).
OPTIONS = ("gilsan_reports", "gilsan_driver", "gilsan_timeout", "gilsan_executable", "gilsan_isolate")


def pytest_addoption(parser):
    group = parser.getgroup("gilsan", "gilsan: each test under gilsan's watchdog and sanitizer")
    group.addoption("--gilsan", action="store_true", default=False,
                    help="run the tests under gilsan: a pip install loads this plugin into every pytest, off until "
                         "asked (ini: gilsan = true); -p gilsan.pytest asks too")
    parser.addini("gilsan", "run the tests under gilsan (see --gilsan)", type="bool", default=False)
    group.addoption("--gilsan-reports", choices=("fail", "warn"), default=None,
                    help="what a sanitizer report does to the test that caused it: fail (default) or warn; "
                         "a hang or a crash always fails it (ini: gilsan_reports)")
    group.addoption("--gilsan-driver", choices=("auto", "real", "sim"), default=None,
                    help="the CUDA driver the tests run on (gilsan run --driver; default auto; ini: gilsan_driver)")
    group.addoption("--gilsan-timeout", type=float, default=None,
                    help="seconds one test may take before gilsan stops it (default 300; ini: gilsan_timeout)")
    group.addoption("--gilsan-executable", default=None,
                    help="the gilsan program (default: $GILSAN_EXECUTABLE, else the one installed or built with "
                         "this module, else gilsan on PATH)")
    group.addoption("--gilsan-isolate", choices=("session", "test"), default=None,
                    help="session (default): one child under gilsan runs every test, replaced after a hang or a "
                         "crash; test: each test in a child of its own (ini: gilsan_isolate)")
    parser.addini("gilsan_isolate", "session or test (see --gilsan-isolate)", default="session")
    parser.addini("gilsan_reports", "fail or warn (see --gilsan-reports)", default="fail")
    parser.addini("gilsan_driver", "auto, real or sim (see --gilsan-driver)", default="auto")
    parser.addini("gilsan_timeout", "seconds per test (see --gilsan-timeout)", default="300")


def pytest_configure(config):
    from gilsan.pytest_worker import WORKER_VARIABLE, SessionWorker

    if os.environ.get(WORKER_VARIABLE):
        config.pluginmanager.register(SessionWorker(config, os.environ[WORKER_VARIABLE]), "gilsan-worker")
    elif os.environ.get(RESULT_VARIABLE):
        config.pluginmanager.register(ChildReports(config, os.environ[RESULT_VARIABLE]), "gilsan-child")
    elif not asked_for(config):
        given = [option for option in OPTIONS if config.getoption(option) is not None]
        if given:
            names = ", ".join("--" + option.replace("_", "-") for option in given)
            raise pytest.UsageError(f"gilsan is off, so {names} would do nothing: add --gilsan")
    else:
        settings = Settings(config)
        if settings.isolate == "session":
            from gilsan.pytest_session import SessionSupervisor

            config.pluginmanager.register(SessionSupervisor(config, settings), "gilsan-supervisor")
        else:
            config.pluginmanager.register(Supervisor(config, settings), "gilsan-supervisor")


def asked_for(config):
    """--gilsan, the ini's gilsan = true, or this plugin named: -p gilsan.pytest (or -p gilsan, the entry
    point's name), PYTEST_PLUGINS, a conftest's pytest_plugins, or loaded at all without pip. A plugin that
    only a pip install's pytest11 entry point (gilsan_entry_point) loaded, as every pytest of that
    environment does, stays off."""
    if config.getoption("gilsan") or config.getini("gilsan"):
        return True
    entry_point = sys.modules.get("gilsan_entry_point")
    if entry_point is None or entry_point.NAMED_BEFORE:
        return True
    named = list(config.getoption("plugins") or []) + os.environ.get("PYTEST_PLUGINS", "").split(",")
    if any(name.strip() in (__name__, "gilsan") for name in named):
        return True
    # The root conftest is loaded before pytest_configure, after the entry points.
    for plugin in config.pluginmanager.get_plugins():
        declared = getattr(plugin, "pytest_plugins", ())
        if plugin is not entry_point and __name__ in ([declared] if isinstance(declared, str) else declared):
            return True
    return False


class Settings:
    """The plugin's options as the parent was given them, and what a child is started with."""

    def __init__(self, config):
        self.reports_mode = config.getoption("gilsan_reports") or config.getini("gilsan_reports")
        if self.reports_mode not in ("fail", "warn"):
            raise pytest.UsageError(f"gilsan_reports must be fail or warn, not {self.reports_mode!r}")
        self.driver = config.getoption("gilsan_driver") or config.getini("gilsan_driver")
        if self.driver not in ("auto", "real", "sim"):
            raise pytest.UsageError(f"gilsan_driver must be auto, real or sim, not {self.driver!r}")
        self.isolate = config.getoption("gilsan_isolate") or config.getini("gilsan_isolate")
        if self.isolate not in ("session", "test"):
            raise pytest.UsageError(f"gilsan_isolate must be session or test, not {self.isolate!r}")
        try:
            self.timeout = float(config.getoption("gilsan_timeout") or config.getini("gilsan_timeout"))
        except ValueError as error:
            raise pytest.UsageError(f"gilsan_timeout must be a number of seconds: {error}") from None
        if not self.timeout > 0:
            raise pytest.UsageError(f"gilsan_timeout must be more than 0 seconds, not {self.timeout:g}")
        self.executable = gilsan_executable(config)

    def child_command(self, config, json_path, folder, gilsan_options=(), pytest_arguments=()):
        """``gilsan run`` of a child pytest with this plugin. The ini file's addopts reach it (and
        PYTEST_ADDOPTS): pytest-xdist is kept out (its workers would be other pytests, not ours), and the
        cache goes to the child's private `folder` rather than being turned off, so that --lf or --ff in
        addopts still parse."""
        command = [self.executable, "run", "--driver", self.driver, "--report", "json", "-o", json_path,
                   *gilsan_options, "--", sys.executable, "-m", "pytest", *pytest_arguments, "-p", __name__,
                   "-p", "no:xdist", "-o", f"cache_dir={os.path.join(folder, 'cache')}", "-q",
                   "--rootdir", str(config.rootpath)]
        if config.inipath is not None:
            command += ["-c", str(config.inipath)]
        return command

    def child_environment(self, variables):
        """The parent's environment with `variables`; the child's interpreter imports this plugin (and the
        extension) from where the parent did."""
        import gilsan

        environment = dict(os.environ)
        environment.update(variables)
        paths = [os.path.dirname(os.path.abspath(gilsan.__file__))]
        paths += [entry for entry in environment.get("PYTHONPATH", "").split(os.pathsep) if entry]
        environment["PYTHONPATH"] = os.pathsep.join(paths)
        return environment


def gilsan_executable(config):
    """The gilsan program: the option, the environment, the one beside this module's tree, PATH."""
    chosen = config.getoption("gilsan_executable") or os.environ.get("GILSAN_EXECUTABLE")
    if chosen:
        return chosen
    import gilsan  # the extension: its file says which tree this plugin belongs to

    module_folder = os.path.dirname(os.path.abspath(gilsan.__file__))
    # An installed tree: PREFIX/lib/gilsan/python; a build tree: BUILD/python.
    for relative in ("../../../bin/gilsan", "../bin/gilsan"):
        candidate = os.path.normpath(os.path.join(module_folder, relative))
        if os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("gilsan")
    if found:
        return found
    raise pytest.UsageError("gilsan.pytest: no gilsan program found (set --gilsan-executable or GILSAN_EXECUTABLE)")


class ChildReports:
    """Child mode: writes the one test's pytest reports to the parent's file, as they are made."""

    def __init__(self, config, path):
        # Not for pytests this one starts (a test that runs pytest): they are not ours.
        os.environ.pop(RESULT_VARIABLE, None)
        self.config = config
        self.path = path

    def pytest_runtest_logstart(self, nodeid, location):
        import gilsan

        gilsan.note_activity(f"pytest {nodeid}")  # on the board: a hang's report names the test

    def pytest_runtest_logfinish(self, nodeid, location):
        import gilsan

        gilsan.note_activity(None)

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report):
        document = self.config.hook.pytest_report_to_serializable(config=self.config, report=report)
        # One line per report, flushed: a test that hangs later still leaves its earlier phases.
        with open(self.path, "a", encoding="utf-8") as stream:
            stream.write(json.dumps(document) + "\n")


class Supervisor:
    """Parent mode with --gilsan-isolate=test: runs each test in a child under gilsan and reports what
    happened to it."""

    def __init__(self, config, settings):
        self.config = config
        self.settings = settings
        self.reports_mode = settings.reports_mode
        self.driver = settings.driver
        self.timeout = settings.timeout
        self.executable = settings.executable

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item, nextitem):
        item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        with tempfile.TemporaryDirectory(prefix="gilsan-pytest-") as folder:
            run = self.run_child(item, folder)
        for report in self.reports_for(item, run):
            item.ihook.pytest_runtest_logreport(report=report)
        item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        return True  # the test ran (in the child): pytest's own protocol must not run it again

    def child_command(self, item, json_path):
        # The test by its file's full path: the child runs where pytest was started, which need not be the
        # root folder node ids are relative to.
        test = str(item.path) + (item.nodeid[item.nodeid.index("::"):] if "::" in item.nodeid else "")
        return self.settings.child_command(self.config, json_path, os.path.dirname(json_path),
                                           ("--timeout", str(max(1, round(self.timeout)))), (test,))

    def child_environment(self, result_path):
        return self.settings.child_environment({RESULT_VARIABLE: result_path})

    def run_child(self, item, folder):
        json_path = os.path.join(folder, "gilsan.json")
        result_path = os.path.join(folder, "reports.jsonl")
        process = subprocess.Popen(self.child_command(item, json_path), cwd=str(self.config.invocation_params.dir),
                                   env=self.child_environment(result_path), stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
                                   preexec_fn=stop_with_parent)
        try:
            stdout, stderr = process.communicate(timeout=self.timeout + GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            # SIGTERM, not SIGKILL: gilsan then stops the test's process group itself (a SIGKILLed gilsan
            # would leave it running), and says so in its report.
            process.send_signal(signal.SIGTERM)
            stdout, stderr = process.communicate()
        return ChildRun(process.returncode, stdout, stderr, read_json(json_path), read_reports(self.config, result_path))

    def reports_for(self, item, run):
        outcome = (run.gilsan or {}).get("outcome")
        if outcome is None:
            return failed_report(item, "gilsan did not run the test (exit status "
                                  f"{run.returncode}):\n{run.stderr or run.stdout}", run.reports)
        if outcome == "pass" or outcome.startswith("exit:"):
            if run.reports:
                return run.reports
            return failed_report(item, describe(run.gilsan, "the test's pytest ended without reports"), [])
        if outcome.startswith("report:") and self.reports_mode == "warn":
            # Attributed to the test's own line, not to this plugin's.
            warnings.warn_explicit(GilsanReportWarning(describe(run.gilsan, None)), GilsanReportWarning,
                                   filename=str(item.path), lineno=(item.location[1] or 0) + 1)
            return run.reports or failed_report(item, describe(run.gilsan, None), [])
        return failed_report(item, describe(run.gilsan, None), run.reports)


class ChildRun:
    def __init__(self, returncode, stdout, stderr, gilsan, reports):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.gilsan = gilsan
        self.reports = reports


def stop_with_parent():
    """In the gilsan child, before exec: SIGTERM when pytest dies, so no test outlives the session.

    Runs between fork and exec: one prctl through the function resolved at import.
    """
    _prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM))


def read_json(path):
    try:
        with open(path, encoding="utf-8") as stream:
            return json.load(stream)
    except (OSError, ValueError):
        return None


def read_reports(config, path):
    try:
        with open(path, encoding="utf-8") as stream:
            lines = [line for line in stream if line.strip()]
    except OSError:
        return []
    reports = []
    for line in lines:
        try:
            document = json.loads(line)
        except ValueError:
            continue  # a line cut short by a kill: the phases before it still count
        reports.append(config.hook.pytest_report_from_serializable(config=config, data=document))
    return [report for report in reports if report is not None]


def describe(document, fallback):
    """The failure text: gilsan's verdict, then the watchdog's and the sanitizer's reports."""
    parts = [f"gilsan: expected {document.get('expected', 'pass')}, got {document.get('outcome')}"]
    watchdog = document.get("watchdog") or {}
    verdict = document.get("verdict") or {}
    if watchdog.get("text"):
        parts.append(watchdog["text"])  # it begins with the verdict's summary
    elif verdict.get("explanation"):
        parts.append(verdict["explanation"])
    sanitizer = document.get("sanitizer") or {}
    if sanitizer.get("text") and document.get("outcome", "").startswith("report:"):
        parts.append(sanitizer["text"])
    if fallback:
        parts.append(fallback)
    if len(parts) == 1 or not document.get("outcome", "").startswith(("report:", "deadlock:")):
        stderr = (document.get("stderr") or "").strip()
        if stderr:
            parts.append("the test's stderr (end):\n" + stderr[-4000:])
    return "\n\n".join(part.rstrip() for part in parts)


def failed_report(item, text, child_reports, duration=0.0):
    """Setup, call and teardown of the test, the call failed with text: a run that hung or crashed has
    no reports of its later phases, and pytest's reporters (JUnit's among them) expect all three.
    `duration`: the call's, in seconds (a hang's: from the test's start until gilsan named it)."""
    keywords = {name: 1 for name in item.keywords}

    def phase(when, outcome, longrepr):
        return pytest.TestReport(item.nodeid, item.location, keywords, outcome, longrepr, when,
                                 duration=duration if when == "call" else 0.0)

    earlier = "\n\n".join(str(report.longrepr) for report in child_reports if report.failed and report.longrepr)
    if earlier:
        text += "\n\nthe test's own failure:\n" + earlier
    return [phase("setup", "passed", None), phase("call", "failed", text), phase("teardown", "passed", None)]
