# gilsan: expect = memory-limit
# gilsan: description = allocates 64 MiB at a time, writing every page, up to 2 GiB; --max-rss ends it
"""A scenario whose memory grows until something stops it: under `--max-rss 256M` the runner kills its
process tree and names the outcome memory-limit (not crash:SIGKILL). Without the limit it stops at
2 GiB and passes, which the test's expectation fails."""
import time

chunks = []
for _ in range(32):
    chunks.append(b"\x01" * (64 << 20))  # filled, so every page is resident
    time.sleep(0.01)
