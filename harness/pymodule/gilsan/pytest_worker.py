"""The child of the plugin's session mode (docs/pytest-plugin.md, "Session mode").

One pytest process under ``gilsan run`` runs every test the parent asks for, one at a time, in the
order asked. The parent starts it while it still collects, and its first command names the files to
collect; then it writes a command line per test into a FIFO (the test's node id, and the next
test's, so that fixtures are torn down as a plain pytest would), and reads back, through a second FIFO,
a line when the test starts, each of its pytest reports (serialized by pytest's own hook), and a line
when it ends with the sanitizer reports made while it ran. So a test that hangs leaves the parent the
test's name and the phases it finished, and the parent's pytest reports everything as if it had run the
tests itself.

The sanitizer is the injected one (``gilsan run`` sets CUDA_INJECTION64_PATH); its JSON report
(GILSAN_REPORT) is rewritten and its text report (GILSAN_SANITIZER_TEXT) appended after every report,
so what a test added is what was there after it and not before. The test's node id is also on the
board (gilsan.note_activity) while it runs, so the watchdog's report of a hang names it beside the
thread that ran it.
"""

import json
import os

import pytest

import gilsan

# Set by the parent: the folder that holds the two FIFOs, "commands" and "results".
WORKER_VARIABLE = "GILSAN_PYTEST_WORKER"


class SanitizerReports:
    """The injected sanitizer's reports so far: how many, and how far its text goes."""

    def __init__(self):
        self.json_path = os.environ.get("GILSAN_REPORT")
        self.text_path = os.environ.get("GILSAN_SANITIZER_TEXT")

    def mark(self):
        return len(self.checkers()), self.text_size()

    def since(self, mark):
        """The reports made after `mark`: their checkers, their text, the text's end now, and the mark to
        count the next ones from. The text is read up to where it ends now, and the reports counted
        first: the JSON report is written before the text, so a report caught between the two has its
        checker counted here and its text read with the next."""
        count, offset = mark
        checkers = self.checkers()
        end = self.text_size()
        text = ""
        if len(checkers) > count and self.text_path:
            with open(self.text_path, "rb") as stream:
                stream.seek(offset)
                text = stream.read(end - offset).decode("utf-8", "replace")
            offset = end
        return {"checkers": checkers[count:], "text": text, "text_end": offset, "mark": (len(checkers), offset)}

    def checkers(self):
        if not self.json_path:
            return []
        try:
            with open(self.json_path, encoding="utf-8") as stream:
                document = json.load(stream)  # replaced by a rename after each report: always whole
        except (OSError, ValueError):
            return []
        return [report.get("checker", "") for report in document.get("reports", [])]

    def text_size(self):
        try:
            return os.path.getsize(self.text_path) if self.text_path else 0
        except OSError:
            return 0


class SessionWorker:
    """Runs the tests the parent names, and tells it what became of each."""

    def __init__(self, config, folder):
        # Not for pytests this one starts (a test that runs pytest, pytest-xdist's workers): they are not ours.
        os.environ.pop(WORKER_VARIABLE, None)
        self.config = config
        self.commands_path = os.path.join(folder, "commands")
        self.commands = None  # opened at the first command: the parent holds its end open already
        self.stopped = False
        # The parent holds the read end open before it starts us, so this does not wait.
        self.results = open(os.path.join(folder, "results"), "w", encoding="utf-8")
        self.sanitizer = SanitizerReports()

    def send(self, message, flush=True):
        self.results.write(json.dumps(message) + "\n")
        if flush:
            self.results.flush()

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report):
        document = self.config.hook.pytest_report_to_serializable(config=self.config, report=report)
        # Each phase's report leaves at once, for the parent to have it should the next phase hang; the
        # teardown's goes with the test's end, which follows it at once.
        self.send({"event": "report", "report": document}, flush=report.when != "teardown")

    def next_command(self):
        """The parent's next command; {"stop": True} when it closed its end (or died)."""
        if self.commands is None:
            self.commands = open(self.commands_path, encoding="utf-8")
        line = self.commands.readline()
        return json.loads(line) if line else {"stop": True}

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session):
        # The parent starts us while it still collects, and names the files when it is done.
        command = self.next_command()
        self.stopped = bool(command.get("stop"))  # the parent ran no test after all
        files = []
        if not self.stopped:
            with open(command["collect"], encoding="utf-8") as stream:
                files = json.load(stream)
        session.perform_collect(files)
        return True

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        items = {item.nodeid: item for item in session.items}
        self.send({"event": "ready", "collected": len(items)})
        # Each test's reports are those made after the one before it ended, so that one made between two
        # tests (a host function that ran after its test) goes to the next, and none to neither.
        mark = self.sanitizer.mark()
        while not self.stopped:
            command = self.next_command()
            if command.get("stop"):
                break
            item = items.get(command["run"])
            if item is None:
                self.send({"event": "unknown", "nodeid": command["run"]})
                continue
            nextitem = items.get(command.get("next") or "")
            self.send({"event": "start", "nodeid": item.nodeid})
            # On the board: a hang's report names the test with the thread that ran it.
            gilsan.note_activity(f"pytest {item.nodeid}")
            item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
            gilsan.note_activity(None)
            made = self.sanitizer.since(mark)
            mark = made["mark"]
            del made["mark"]
            self.send({"event": "finish", "nodeid": item.nodeid, "sanitizer": made})
        return True  # the loop is ours: pytest must not run the collected items again

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config):
        self.results.close()
        if self.commands is not None:
            self.commands.close()
