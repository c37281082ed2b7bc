# gilsan: expect = pass
# gilsan: description = megabytes on stdout and stderr, interleaved: the parent must drain both pipes
import sys

line = "x" * 1023 + "\n"
for _ in range(2048):
    sys.stdout.write(line)
    sys.stderr.write(line)
print("flood done")
