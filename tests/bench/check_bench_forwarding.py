"""The bench's forwarding group (bench_sanitizer.py): `gilsan run --sanitize off` with the forwarding
driver put in front of the "real" driver, which here is the simulated one standing in for it (a folder
where it is libcuda.so.1, as the forwarding ctests do). The check runs itself again with that folder
on its library path, so that it finds the simulated driver as the bench's child finds the real one.
Then the measure's `gilsan run` is given a library path without it: only the forwarding driver, which
reaches it through GILSAN_REAL_LIBCUDA, can make the workloads pass. Checks that they do, with a figure
each, that the forwarding driver's folder is gone afterwards, and what the group says where it cannot
run. Never checks a time.

Usage: check_bench_forwarding.py GILSAN SIMULATED_DRIVER FORWARDING_DRIVER BENCH_SCRIPTS IMPL_DIR"""
import os
import subprocess
import sys
import tempfile

STAGE = "GILSAN_TEST_FORWARDING_STAGE"


def inner(gilsan, forwarding, scripts, impl):
    sim_as_real = os.environ["LD_LIBRARY_PATH"]
    sys.path[:0] = [scripts, impl]
    import bench_sanitizer

    # The file this process loaded as libcuda.so.1, as the bench's child finds the real driver's.
    assert bench_sanitizer.real_driver_file() == os.path.join(sim_as_real, "libcuda.so.1"), \
        bench_sanitizer.real_driver_file()
    os.environ.update(GILSAN_BENCH_GILSAN=gilsan, GILSAN_BENCH_CUDASHIM_LIBRARY=forwarding)
    # The simulated driver only through the forwarding driver from here on.
    del os.environ["LD_LIBRARY_PATH"]
    for variable in ("GILSAN_SIM_LIBRARY", "GILSAN_REAL_LIBCUDA"):
        os.environ.pop(variable, None)
    assert "simulated driver" in bench_sanitizer.forwarding_why_not("sim")
    assert bench_sanitizer.forwarding_why_not("real") is None

    folders = []
    real_run = subprocess.run

    def watched_run(command, **options):
        environment = options["env"]
        folders.append(environment["LD_LIBRARY_PATH"])
        assert os.path.realpath(os.path.join(folders[-1], "libcuda.so.1")) == os.path.realpath(forwarding), folders
        assert command[command.index("--sanitize") + 1] == "off", command
        return real_run(command, **options)

    bench_sanitizer.subprocess.run = watched_run
    try:
        figures = bench_sanitizer.in_process_measure("forwarding", "real", 200)()
    finally:
        bench_sanitizer.subprocess.run = real_run
    names = {f"sanitizer-forwarding/{name}" for name, _ in bench_sanitizer.IN_PROCESS_WORKLOADS}
    assert set(figures) == names, figures
    assert all(isinstance(value, float) and value > 0 for value in figures.values()), figures
    assert len(folders) == 1 and not os.path.exists(folders[0]), folders

    os.environ["GILSAN_BENCH_CUDASHIM_LIBRARY"] = os.path.join(sim_as_real, "missing.so")
    assert "gilsan_cudashim is not built" in bench_sanitizer.forwarding_why_not("real")
    print("gilsan bench: the forwarding group runs behind the forwarding driver")


def main():
    gilsan, simulated, forwarding, scripts, impl = sys.argv[1:6]
    if os.environ.get(STAGE) == "inner":
        inner(gilsan, forwarding, scripts, impl)
        return 0
    # The loader reads LD_LIBRARY_PATH when a process starts: the check runs again with it set.
    with tempfile.TemporaryDirectory(prefix="gilsan-test-sim-as-real-") as sim_as_real:
        os.symlink(simulated, os.path.join(sim_as_real, "libcuda.so.1"))
        environment = dict(os.environ, LD_LIBRARY_PATH=sim_as_real, **{STAGE: "inner"})
        return subprocess.run([sys.executable, os.path.abspath(__file__), *sys.argv[1:]], env=environment,
                              timeout=280).returncode


if __name__ == "__main__":
    sys.exit(main())
