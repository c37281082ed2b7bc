# gilsan: expect = pass
# gilsan: timeout = 120
# gilsan: description = starts a grandchild in its group and one that leaves it (setsid), then sleeps: what a killed gilsan must not leave running
import os
import time

in_group = os.fork()
if in_group == 0:
    while True:
        time.sleep(1)
left_group = os.fork()
if left_group == 0:
    os.setsid()
    while True:
        time.sleep(1)

pid_file = os.environ["GILSAN_TEST_PIDFILE"]
with open(pid_file + ".partial", "w") as pids:
    pids.write(f"{os.getpid()} {in_group} {left_group}\n")
os.replace(pid_file + ".partial", pid_file)  # whoever waits for the file sees it whole
while True:
    time.sleep(1)
