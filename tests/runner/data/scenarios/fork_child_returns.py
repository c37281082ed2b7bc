# gilsan: expect = pass
# gilsan: description = a forked copy of the scenario runs to its end too; only the scenario's own report counts
import os

pid = os.fork()
if pid == 0:
    raise KeyError("raised in the fork, not in the scenario")
os.waitpid(pid, 0)
print("the fork is done")
