"""`gilsan bench --driver sim --quick` with the peers' venv (ci/peers-venv.sh): cuda.core's graph rows are
measured on the simulated driver, which the bench puts first on the child's library path as
libcuda.so.1 so that cuda.core loads it too. Checks that they have figures, never what they are.

Usage: check_bench_peers.py GILSAN VENV"""
import json
import os
import subprocess
import sys
import tempfile


def main():
    gilsan, venv = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "bench.json")
        result = subprocess.run([gilsan, "bench", "--driver", "sim", "--quick", "--impl", "reference,cuda-core",
                                 "--python-env", venv, "--json", path], capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stderr
        with open(path, encoding="utf-8") as document_file:
            rows = {row["id"]: row for row in json.load(document_file)["rows"]}
    for nodes in (100, 2000):
        row = rows[f"cuda-core/graph-{nodes}"]
        assert "median_us" in row, row
    print("gilsan bench: cuda.core graph rows measured on the simulated driver")


if __name__ == "__main__":
    main()
