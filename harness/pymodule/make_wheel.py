#!/usr/bin/env python3
"""Packs gilsan's Python side, as built, into a wheel that pip installs (docs/installing.md, "A wheel").

    make_wheel.py --module BUILD/python/gilsan.<soabi>.so --sim-library LIBGILSAN_SIMCUDA.so \
        --plugin-dir harness/pymodule/gilsan --version 0.1.0 --out-dir DIR

The wheel holds the extension module, the simulated driver beside it (where the module looks for it)
and the pytest plugin (gilsan/pytest.py, a submodule through the extension's __path__). It is tagged
for the interpreter it was built with and this platform only (linux_*, not manylinux: the extension
links what this machine's toolchain provides). The gilsan program is not in it; the plugin finds one
through --gilsan-executable, $GILSAN_EXECUTABLE or PATH.
"""
import argparse
import base64
import hashlib
import os
import sys
import sysconfig
import zipfile

NAME = "gilsan"


def record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", required=True)
    parser.add_argument("--sim-library", required=True)
    parser.add_argument("--plugin-dir", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--out-dir", required=True)
    args = parser.parse_args()

    interpreter = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    tag = f"{interpreter}-{interpreter}-{platform}"
    dist_info = f"{NAME}-{args.version}.dist-info"
    files = {
        os.path.basename(args.module): args.module,
        "libgilsan_simcuda.so": args.sim_library,
    }
    for entry in sorted(os.listdir(args.plugin_dir)):
        if entry.endswith(".py"):
            files[f"{NAME}/{entry}"] = os.path.join(args.plugin_dir, entry)
    metadata = (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {args.version}\n"
                "Summary: gilsan's reference host_launch module and its pytest plugin (pytest -p gilsan.pytest)\n"
                f"Requires-Python: =={sys.version_info.major}.{sys.version_info.minor}.*\n")
    wheel = f"Wheel-Version: 1.0\nGenerator: gilsan make_wheel.py\nRoot-Is-Purelib: false\nTag: {tag}\n"

    os.makedirs(args.out_dir, exist_ok=True)
    path = os.path.join(args.out_dir, f"{NAME}-{args.version}-{tag}.whl")
    records = []
    with zipfile.ZipFile(path + ".part", "w", zipfile.ZIP_DEFLATED) as archive:
        def add(name, data, mode=0o644):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))  # reproducible
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
            records.append(record_line(name, data))

        for name, source in files.items():
            with open(source, "rb") as stream:
                add(name, stream.read(), 0o755 if name.endswith(".so") else 0o644)
        add(f"{dist_info}/METADATA", metadata.encode())
        add(f"{dist_info}/WHEEL", wheel.encode())
        add(f"{dist_info}/top_level.txt", f"{NAME}\n".encode())
        records.append(f"{dist_info}/RECORD,,")
        archive.writestr(zipfile.ZipInfo(f"{dist_info}/RECORD", date_time=(1980, 1, 1, 0, 0, 0)),
                         "\n".join(records) + "\n")
    # Renamed when complete: a wheel that exists is a whole one.
    os.replace(path + ".part", path)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
