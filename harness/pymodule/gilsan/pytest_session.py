"""The parent of the plugin's session mode (docs/pytest-plugin.md, "Session mode"): every test of the
session runs in ONE child, ``gilsan run -- python -m pytest`` with the worker of gilsan/pytest_worker.py,
under gilsan's watchdog and sanitizer, at about pytest's own pace.

The parent keeps pytest's loop: for each test it asks the child to run it (naming the next test too),
relays the child's reports, and turns what gilsan saw into the test's outcome. A sanitizer report made
while the test ran fails it (or warns). When the child ends in the middle of a test -- a hang the
watchdog classified, a crash, a test that ran past --gilsan-timeout (the parent stops gilsan then) --
that test fails with gilsan's report, and the next test starts a new child, as pytest-xdist replaces a
crashed worker. Reports the sanitizer makes only when a child ends (a host function never run) are shown
at the end of the session, and fail it in fail mode.
"""

import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
import warnings

import pytest

from gilsan.pytest import (GRACE_SECONDS, GilsanReportWarning, describe, failed_report, read_json,
                           stop_with_parent)
from gilsan.pytest_worker import WORKER_VARIABLE

# How often the parent looks whether the child is still there while it waits for its next line.
POLL_SECONDS = 0.2
# A child's start and collection, before its first test's --gilsan-timeout begins: each replacement
# child collects the session's files again.
STARTUP_SECONDS = 300.0


class ChildEnded(Exception):
    """The child's gilsan exited; `gilsan` is its JSON report (None when it wrote none)."""

    def __init__(self, gilsan, returncode, stderr):
        super().__init__("the session's child ended")
        self.gilsan = gilsan
        self.returncode = returncode
        self.stderr = stderr


class ProtocolError(Exception):
    """The child said something of another test than the one the parent waits for."""


class SessionChild:
    """One ``gilsan run`` of the worker: its FIFOs, its process, its temporary folder."""

    def __init__(self, settings, config):
        self.folder = tempfile.mkdtemp(prefix="gilsan-pytest-")
        self.results = self.results_keeper = self.commands = None
        try:
            os.mkfifo(os.path.join(self.folder, "commands"), 0o600)
            os.mkfifo(os.path.join(self.folder, "results"), 0o600)
            # Our read end first, non-blocking; a write end of our own too, so that the pipe never reads as
            # ended between children's lines (the child's death is seen by waiting on the process).
            self.results = os.open(os.path.join(self.folder, "results"), os.O_RDONLY | os.O_NONBLOCK)
            self.results_keeper = os.open(os.path.join(self.folder, "results"), os.O_WRONLY | os.O_NONBLOCK)
            # Read and write: opening never waits for the child, and commands wait in the pipe until it reads.
            self.commands = os.open(os.path.join(self.folder, "commands"), os.O_RDWR)
            self.json_path = os.path.join(self.folder, "gilsan.json")
            self.output_path = os.path.join(self.folder, "output.txt")
            with open(self.output_path, "wb") as output:
                # In the folder pytest was started in, as the tests expect; node ids come out the same
                # since the root folder is the parent's.
                self.process = subprocess.Popen(
                    # No timeout for gilsan: the parent keeps one per test.
                    settings.child_command(config, self.json_path, self.folder), cwd=str(config.invocation_params.dir),
                    env=settings.child_environment({WORKER_VARIABLE: self.folder}), stdin=subprocess.DEVNULL,
                    stdout=output, stderr=subprocess.STDOUT, preexec_fn=stop_with_parent)
        except BaseException:
            self.close()
            raise
        self.pending = b""
        self.ready = False  # the child said it has collected
        self.collecting = False  # whether it was told what to collect
        self.asked_ahead = None  # the node id of a test asked for before its turn (ask_ahead)
        self.poller = select.poll()  # not select(): a descriptor may be past 1023 in a busy process
        self.poller.register(self.results, select.POLLIN)
        self.text_end = 0  # how far the sanitizer's text was told with a test
        self.reports_told = 0  # how many sanitizer reports were told with a test

    def send(self, command):
        # A command is a line of a few hundred bytes and the child reads each before it asks for the next
        # test, so the pipe never holds more than two: one write, never a wait. (The list of files goes
        # through a file: it can be longer than the pipe holds.)
        data = (json.dumps(command) + "\n").encode()
        while data:
            data = data[os.write(self.commands, data):]

    def collect(self, files):
        """The child's first command: the files its pytest collects, listed in a file of the folder."""
        listed = os.path.join(self.folder, "collect.json")
        with open(listed, "w", encoding="utf-8") as stream:
            json.dump(files, stream)
        self.send({"collect": listed})
        self.collecting = True

    def next_event(self, deadline):
        """The child's next line, parsed; raises ChildEnded, or TimeoutError past `deadline`."""
        while True:
            newline = self.pending.find(b"\n")
            if newline >= 0:
                line, self.pending = self.pending[:newline], self.pending[newline + 1:]
                try:
                    return json.loads(line)
                except ValueError:
                    continue  # cut short by a kill: what came before it still counts
            if self.process.poll() is not None and not self.read_available():
                raise self.ended()
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError
            wait = POLL_SECONDS if deadline is None else max(0.0, min(POLL_SECONDS, deadline - time.monotonic()))
            if self.poller.poll(wait * 1000):
                self.read_available()

    def read_available(self):
        got = False
        while True:
            try:
                chunk = os.read(self.results, 1 << 16)
            except BlockingIOError:
                return got
            if not chunk:
                return got
            self.pending += chunk
            got = True

    def ended(self):
        returncode = self.process.wait()
        output = ""
        try:
            with open(self.output_path, "rb") as stream:
                output = stream.read()[-8000:].decode("utf-8", "replace")
        except OSError:
            pass
        return ChildEnded(read_json(self.json_path), returncode, output)

    def stop(self, timeout):
        """Ends the child (asked, then SIGTERM to gilsan past `timeout`) and removes its folder. Its lines
        are read and dropped meanwhile: a test it was asked for ahead may still be running, and would wait
        on a full pipe for a reader."""
        try:
            if self.process.poll() is None:
                try:
                    self.send({"stop": True})
                except OSError:
                    pass
                deadline = time.monotonic() + timeout
                while self.process.poll() is None and time.monotonic() < deadline:
                    if self.poller.poll(POLL_SECONDS * 1000):
                        self.read_available()
                    self.pending = b""
                if self.process.poll() is None:
                    self.terminate()
            return self.ended()
        finally:
            self.close()

    def terminate(self):
        # SIGTERM, not SIGKILL: gilsan then stops the test's process group itself and writes its report.
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def close(self):
        for fd in (self.results, self.results_keeper, self.commands):
            if fd is not None:
                os.close(fd)
        self.results = self.results_keeper = self.commands = None
        self.remove_folder()

    def remove_folder(self):
        shutil.rmtree(self.folder, ignore_errors=True)  # the FIFOs, gilsan's report, the output, the cache


class TestRun:
    """What the child said of one test."""

    def __init__(self):
        self.reports = []
        self.sanitizer = None  # {"checkers", "text", "text_end"} at its finish
        self.ended = None  # ChildEnded, when the child ended during the test
        self.timed_out = False
        self.unknown = False
        self.started = time.monotonic()  # when the child said the test started (or was asked to run it)
        self.seconds = 0.0  # from then until the test finished or the child ended
        self.protocol_error = None
        # Where the child's sanitizer reports stood when it ended: what came after is this test's.
        self.reports_told = 0
        self.text_end = 0


class SessionSupervisor:
    """Parent mode, one child for the session (the default; --gilsan-isolate=test runs one per test)."""

    def __init__(self, config, settings):
        self.config = config
        self.settings = settings
        self.child = None
        self.order = None  # node id -> index in session.items, for ask_ahead
        # What came of a child after its last test: (kind, labels, text), kind "reports" (the sanitizer's,
        # made at its exit; labels: their checkers) or "end" (a hang, crash or stop; labels: gilsan's outcome).
        self.leftovers = []

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item, nextitem):
        if not self.runs_tests():
            return None  # --setup-plan, --setup-only: pytest's own protocol, which runs no test
        item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        run = self.run_in_child(item, nextitem)
        for report in self.reports_for(item, run):
            item.ihook.pytest_runtest_logreport(report=report)
        item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        return True

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session):
        # Started now, the child's own start (gilsan, the interpreter, pytest) overlaps our collection.
        if self.runs_tests():
            self.child = self.start_child()

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session):
        if self.child is not None and not self.child.collecting:
            self.child.collect(files_of(session.items))

    def start_child(self):
        try:
            return SessionChild(self.settings, self.config)
        except OSError as error:
            raise pytest.UsageError(f"gilsan.pytest: cannot start {self.settings.executable}: {error}") from None

    def runs_tests(self):
        """Whether this process runs tests: not with --collect-only, --setup-plan or --setup-only, nor as
        pytest-xdist's controller."""
        option = self.config.option
        if option.collectonly or getattr(option, "setupplan", False) or getattr(option, "setuponly", False):
            return False
        return hasattr(self.config, "workerinput") or not getattr(option, "numprocesses", None)

    def run_in_child(self, item, nextitem):
        if self.child is None:
            self.child = self.start_child()
        if not self.child.collecting:
            self.child.collect(files_of(item.session.items))
        child = self.child
        run = TestRun()
        if child.asked_ahead != item.nodeid:
            child.send({"run": item.nodeid, "next": nextitem.nodeid if nextitem is not None else None})
        deadline = time.monotonic() + self.settings.timeout + (0.0 if child.ready else STARTUP_SECONDS)
        try:
            while True:
                event = child.next_event(deadline)
                kind = event.get("event")
                if kind in ("start", "finish", "unknown") and event.get("nodeid") != item.nodeid:
                    # The two sides' queues disagree: nothing the child says can be trusted for this test.
                    raise ProtocolError(f"the child answered for {event.get('nodeid')!r}")
                if kind == "ready":
                    child.ready = True
                    deadline = time.monotonic() + self.settings.timeout
                elif kind == "start":
                    run.started = time.monotonic()
                    deadline = run.started + self.settings.timeout
                    self.ask_ahead(child, item, nextitem)
                elif kind == "report":
                    report = self.config.hook.pytest_report_from_serializable(config=self.config, data=event["report"])
                    if report is not None:
                        run.reports.append(report)
                elif kind == "unknown":
                    run.unknown = True
                    return run
                elif kind == "finish":
                    run.sanitizer = event.get("sanitizer") or {}
                    child.text_end = run.sanitizer.get("text_end", child.text_end)
                    child.reports_told += len(run.sanitizer.get("checkers", []))
                    return run
        except TimeoutError:
            run.timed_out = True
            child.terminate()
            run.ended = child.ended()
        except ChildEnded as ended:
            run.ended = ended
        except ProtocolError as error:
            run.protocol_error = str(error)
            child.terminate()
            run.ended = child.ended()
        run.reports_told, run.text_end = child.reports_told, child.text_end
        run.seconds = time.monotonic() - run.started
        child.close()
        self.child = None
        return run

    def ask_ahead(self, child, item, nextitem):
        """Asks the child for the next test while this one runs, so that it never waits for the parent to
        relay a test's reports. Only where pytest's own loop decides the order (items[i + 1] after
        items[i]): a pytest-xdist worker is handed its tests as it goes, and a wrong guess of the test
        after the next would tear fixtures down in the wrong place; and not with --maxfail, -x or --sw,
        where the parent may stop before the next test. (A plugin that stops the session otherwise finds
        the next test run by then; stop() reads what it says.)"""
        option = self.config.option
        if (nextitem is None or option.maxfail or getattr(option, "stepwise", False) or
                getattr(option, "stepwise_skip", False) or hasattr(self.config, "workerinput")):
            return
        if self.order is None:
            self.order = {candidate.nodeid: index for index, candidate in enumerate(item.session.items)}
        index = self.order.get(item.nodeid)
        items = item.session.items
        if index is None or index + 1 >= len(items) or items[index + 1] is not nextitem:
            return
        after = items[index + 2].nodeid if index + 2 < len(items) else None
        child.send({"run": nextitem.nodeid, "next": after})
        child.asked_ahead = nextitem.nodeid

    def reports_for(self, item, run):
        if run.unknown:
            return failed_report(item, "gilsan: the session's child did not collect this test (its id differs "
                                       "between two collections?); run it with --gilsan-isolate=test", [])
        if run.ended is not None:
            return failed_report(item, self.ended_text(item, run), run.reports, run.seconds)
        checkers = run.sanitizer.get("checkers", [])
        if not checkers:
            return run.reports
        text = (f"gilsan: expected pass, got report:{checkers[0]} (made while this test ran)\n\n"
                + run.sanitizer.get("text", "").rstrip())
        if self.settings.reports_mode == "warn":
            # Attributed to the test's own line, not to this plugin's.
            warnings.warn_explicit(GilsanReportWarning(text), GilsanReportWarning, filename=str(item.path),
                                   lineno=(item.location[1] or 0) + 1)
            return run.reports
        return failed_report(item, text, run.reports)

    def ended_text(self, item, run):
        """Why the child ended during `item`. gilsan's outcome is the whole child's, in which an earlier
        test's sanitizer report outranks an exit: only what came after the earlier tests is this one's."""
        ended, document = run.ended, run.ended.gilsan
        parts = []
        if run.protocol_error:
            parts.append(f"gilsan.pytest: {run.protocol_error} while this test ran; the child was replaced")
        elif run.timed_out:
            parts.append(f"gilsan: the test ran past --gilsan-timeout ({self.settings.timeout:g} s); gilsan was "
                         "stopped with it")
        if document is None:
            parts.append(f"gilsan did not finish the session's child (exit status {ended.returncode}) while this "
                         f"test ran:\n{ended.stderr}")
            return "\n\n".join(parts)
        outcome = document.get("outcome") or ""
        if outcome == "pass" or outcome.startswith(("exit:", "report:")):
            status = (document.get("exit") or {}).get("status")
            parts.append(f"gilsan: the session's child exited (status {status}) while this test ran: a test must "
                         "not end the process")
        else:
            parts.append(describe(document, f"(the session's child ended while {item.nodeid} ran)"))
        sanitizer = document.get("sanitizer") or {}
        if len(sanitizer.get("checkers") or []) > run.reports_told:
            text = (sanitizer.get("text") or "").encode()[run.text_end:].decode("utf-8", "replace").rstrip()
            parts.append("the sanitizer's reports made while this test ran:\n" + text)
        return "\n\n".join(parts)

    def finish_child(self):
        if self.child is None:
            return
        child, self.child = self.child, None
        ended = child.stop(self.settings.timeout)
        document = ended.gilsan or {}
        sanitizer = document.get("sanitizer") or {}
        checkers = sanitizer.get("checkers") or []
        if len(checkers) > child.reports_told:
            # Made at the child's exit (a host function lost, a callable kept): no test was running.
            text = (sanitizer.get("text") or "").encode()[child.text_end:].decode("utf-8", "replace")
            self.leftovers.append(("reports", checkers[child.reports_told:], text.rstrip()))
        outcome = document.get("outcome") or ""
        if ended.gilsan is None or not (outcome == "pass" or outcome.startswith(("exit:", "report:"))):
            # The child hung, crashed or was stopped after its last test (an atexit hook, the interpreter's
            # end): no test owns it, and it must not pass unseen.
            text = (describe(document, None) if ended.gilsan is not None else
                    f"gilsan did not finish the session's child (exit status {ended.returncode}):\n{ended.stderr}")
            self.leftovers.append(("end", [outcome or "no report from gilsan"], text.rstrip()))

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session):
        self.finish_child()
        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:
            # A pytest-xdist worker has no terminal of its own: its controller shows them (below).
            workeroutput["gilsan_leftovers"] = [list(leftover) for leftover in self.leftovers]
        # Reports fail the session in fail mode; a hang or crash always does. Never over another status
        # (interrupted, an internal or usage error).
        failing = any(kind == "end" or self.settings.reports_mode == "fail" for kind, _, _ in self.leftovers)
        if failing and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error):
        """pytest-xdist's controller: a worker ended, with the reports its children made at their end."""
        for kind, labels, text in getattr(node, "workeroutput", {}).get("gilsan_leftovers", []):
            self.leftovers.append((kind, labels, text))

    def pytest_terminal_summary(self, terminalreporter):
        if not self.leftovers:
            return
        terminalreporter.section("gilsan: reports made when a session's child ended, after its last test")
        for kind, labels, text in self.leftovers:
            if kind == "reports":
                terminalreporter.line(f"{len(labels)} report(s): {', '.join(labels)}")
            else:
                terminalreporter.line(f"the child ended with {labels[0]} after its last test:")
            terminalreporter.line(text)

    def pytest_unconfigure(self, config):
        self.finish_child()  # an interrupted session: nothing outlives it


def files_of(items):
    """The files the session's tests are in, in order, by their full paths: the child collects them (a
    file it is given to collect is collected whatever python_files says) and runs the tests it is asked
    for."""
    files = {}
    for item in items:
        files.setdefault(str(item.path), None)
    return list(files)
