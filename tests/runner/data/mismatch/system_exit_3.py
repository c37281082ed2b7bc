# gilsan: expect = pass
# gilsan: description = sys.exit(3) is the outcome exit:3, which no expectation matches
import sys

sys.exit(3)
