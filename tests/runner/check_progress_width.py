"""The suite's live status line on a terminal of a given width: run `gilsan suite` on a pseudo-terminal
of COLUMNS columns, narrowed mid-run (SIGWINCH), and check that no row the terminal would show is wider
than the terminal was when it was written, so that nothing wraps into a stale row.

usage: check_progress_width.py GILSAN SCENARIO_FOLDER COLUMNS NARROWER
Exit status: 0 every row fits, 1 a row was wider, 2 usage.
"""
import fcntl
import os
import pty
import re
import select
import struct
import sys
import termios
import time


def set_width(fd, columns):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    gilsan, folder, columns, narrower = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm"
        os.execv(gilsan, [gilsan, "suite", folder, "--driver", "sim", "--jobs", "2"])
    set_width(fd, columns)
    chunks = []  # (seconds since the start, bytes)
    started = time.monotonic()
    resized_at = None
    while True:
        now = time.monotonic() - started
        if resized_at is None and now > 1.0:
            set_width(fd, narrower)  # the kernel sends SIGWINCH to the terminal's foreground group
            resized_at = now
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            chunks.append((time.monotonic() - started, chunk))
        if now > 240:
            os.kill(pid, 9)
            print("FAIL: the suite did not end in 240 s")
            return 1
    _, status = os.waitpid(pid, 0)
    # Each status line is what follows "\r\033[K" up to the next carriage return, escape or newline;
    # the time it was read tells which width it had to fit (either, in the half second after the resize).
    text, times = "", []
    for at, chunk in chunks:
        decoded = chunk.decode("utf-8", "replace")
        text += decoded
        times += [at] * len(decoded)
    before = after = 0
    for match in re.finditer(r"\r\x1b\[K(\[[^\r\n\x1b]*)", text):
        line, at = match.group(1), times[match.start()]
        limit = columns if resized_at is None or at < resized_at + 0.5 else narrower
        if len(line) >= limit:
            print(f"FAIL: at {at:.2f} s a status line of {len(line)} characters on a {limit}-column terminal: {line!r}")
            return 1
        if limit == narrower:
            after += 1
        else:
            before += 1
    if before == 0 or after == 0:
        print(f"FAIL: {before} status lines before the resize and {after} after: nothing to check")
        return 1
    print(f"{before} status lines narrower than {columns} columns, {after} narrower than {narrower} after the "
          f"resize; gilsan exited with {os.waitstatus_to_exitcode(status)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
