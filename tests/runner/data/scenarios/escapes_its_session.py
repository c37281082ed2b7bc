# gilsan: expect = pass
# gilsan: timeout = 20
# gilsan: description = leaves a daemon behind: a grandchild in a session of its own whose parent has exited
"""The classic double fork of a daemon: the child calls setsid() (a new session and process group) and
forks the process that stays, then exits, so that process is an orphan outside the scenario's process
group. The scenario itself passes at once; the run must still end that process (run_marker.h), without
waiting for the pipes it holds."""
import os
import tempfile
import time

reader, writer = os.pipe()
middle = os.fork()
if middle == 0:
    os.setsid()
    daemon = os.fork()
    if daemon == 0:
        os.close(reader)
        os.write(writer, f"{os.getpid()}\n".encode())
        os.close(writer)
        while True:
            time.sleep(1)
    os._exit(0)
os.close(writer)
daemon = int(os.read(reader, 64).decode())
os.waitpid(middle, 0)
print("daemon", daemon, "left running", flush=True)
# The test that runs this scenario checks afterwards that neither this process nor the daemon exists.
pid_file = os.environ.get("GILSAN_TEST_PIDFILE") or os.path.join(tempfile.gettempdir(), "gilsan-escapes.pids")
with open(pid_file + ".partial", "w") as pids:
    pids.write(f"{os.getpid()} {daemon}\n")
os.replace(pid_file + ".partial", pid_file)
