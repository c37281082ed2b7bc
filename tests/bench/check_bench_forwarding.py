"""The bench's forwarding group (bench_sanitizer.py): `gilsan run --sanitize off` with the forwarding
driver put in front of the "real" driver, which here is the simulated one standing in for it (a folder
where it is libcuda.so.1, as the forwarding ctests do). Checks that the child's library path leads to
the forwarding driver while it runs, that the workloads pass and give a figure each, that the folder is
gone afterwards, and what the group says where it cannot run. Never checks a time.

Usage: check_bench_forwarding.py GILSAN SIMULATED_DRIVER FORWARDING_DRIVER BENCH_SCRIPTS IMPL_DIR"""
import os
import subprocess
import sys
import tempfile


def main():
    gilsan, simulated, forwarding, scripts, impl = sys.argv[1:6]
    sys.path[:0] = [scripts, impl]
    with tempfile.TemporaryDirectory(prefix="gilsan-test-sim-as-real-") as sim_as_real:
        os.symlink(simulated, os.path.join(sim_as_real, "libcuda.so.1"))
        os.environ.update(GILSAN_BENCH_GILSAN=gilsan, GILSAN_BENCH_CUDASHIM_LIBRARY=forwarding,
                          LD_LIBRARY_PATH=sim_as_real)
        os.environ.pop("GILSAN_SIM_LIBRARY", None)  # the child finds its driver on the library path alone
        import bench_sanitizer

        assert "simulated driver" in bench_sanitizer.forwarding_why_not("sim")
        assert bench_sanitizer.forwarding_why_not("real") is None
        seen = []
        real_run = subprocess.run

        def watched_run(command, **options):
            environment = options["env"]
            folder = environment["LD_LIBRARY_PATH"].split(":")[0]
            seen.append(folder)
            assert os.path.realpath(os.path.join(folder, "libcuda.so.1")) == os.path.realpath(forwarding), folder
            assert environment["LD_LIBRARY_PATH"].endswith(":" + sim_as_real), environment["LD_LIBRARY_PATH"]
            assert environment["GILSAN_REAL_LIBCUDA"] == simulated, environment["GILSAN_REAL_LIBCUDA"]
            assert command[command.index("--sanitize") + 1] == "off", command
            return real_run(command, **options)

        bench_sanitizer.subprocess.run = watched_run
        figures = bench_sanitizer.in_process_measure("forwarding", "real", 200, simulated)()
        bench_sanitizer.subprocess.run = real_run
        names = {f"sanitizer-forwarding/{name}" for name, _ in bench_sanitizer.IN_PROCESS_WORKLOADS}
        assert set(figures) == names, figures
        assert all(isinstance(value, float) and value > 0 for value in figures.values()), figures
        assert len(seen) == 1 and not os.path.exists(seen[0]), seen

        os.environ["GILSAN_BENCH_CUDASHIM_LIBRARY"] = os.path.join(sim_as_real, "missing.so")
        assert "gilsan_cudashim is not built" in bench_sanitizer.forwarding_why_not("real")
    print("gilsan bench: the forwarding group runs behind the forwarding driver")


if __name__ == "__main__":
    main()
