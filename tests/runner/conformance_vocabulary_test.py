#!/usr/bin/env python3
"""The two halves of the conformance vocabulary agree: the names C++ accepts in scenario headers and on
the command line (harness/scenario/conformance_vocabulary.h) are the adapters' (gilsan_impl.BUILTIN) and
capabilities' (gilsan_impl.base.CAPABILITIES) names, in the same order.

Usage: conformance_vocabulary_test.py SOURCE_DIR
"""
import re
import sys


def cpp_list(text, name):
    found = re.search(name + r"\[\] = \{(.*?)\};", text, re.S)
    if found is None:
        sys.exit(f"conformance_vocabulary.h: no {name}")
    return re.findall(r'"([^"]+)"', found.group(1))


def main():
    source = sys.argv[1]
    sys.path.insert(0, f"{source}/harness/impl")
    import gilsan_impl

    with open(f"{source}/harness/scenario/conformance_vocabulary.h") as header:
        text = header.read()
    failures = []
    for name, python_side in (("kBuiltinImplementations", list(gilsan_impl.BUILTIN)),
                              ("kCapabilities", list(gilsan_impl.CAPABILITIES))):
        cpp_side = cpp_list(text, name)
        if cpp_side != python_side:
            failures.append(f"{name}: C++ {cpp_side} != Python {python_side}")
    for failure in failures:
        print(failure)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
