"""The implementations of host_launch that gilsan's conformance scenarios run against.

A scenario written for several implementations (`# gilsan: implementations = any`) never calls a
binding itself: it takes `gilsan_impl.current()` and calls its small interface (base.Implementation),
so the same file checks gilsan's reference module, CuPy, cuda.core, cuda.bindings, numba-cuda, or an
implementation of one's own named on the command line (`gilsan suite --impl mypkg.adapter:Impl`).

The runner picks the implementation of a run with `select(name, capabilities)` before the scenario
starts: it answers why the run cannot happen (the package is not installed, or the implementation lacks
a capability the scenario needs), or None and makes it the one `current()` returns.
"""
import importlib
import os

from gilsan_impl.base import CAPABILITIES, Implementation, Unavailable

# The implementations gilsan knows, by the name the matrix shows: "module:Class" in this package.
BUILTIN = {
    "reference": "gilsan_impl.reference:Reference",
    "cupy": "gilsan_impl.cupy_impl:CuPy",
    "cuda-core": "gilsan_impl.cuda_core_impl:CudaCore",
    "cuda-bindings": "gilsan_impl.cuda_bindings_impl:CudaBindings",
    "numba-cuda": "gilsan_impl.numba_cuda_impl:NumbaCuda",
}

_current = None


class AdapterError(Exception):
    """An adapter named on the command line cannot be used: a mistake to report, not a skip."""


def load(spec):
    """The implementation named `spec`: a built-in name, or "package.module:Class" of one's own. An
    adapter of one's own that cannot be imported is an AdapterError: it was asked for by name."""
    path = BUILTIN.get(spec, spec)
    module_name, _, class_name = path.partition(":")
    if not module_name or not class_name:
        raise AdapterError(f"unknown implementation '{spec}' (built in: {', '.join(BUILTIN)}; "
                           "or package.module:Class)")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise AdapterError(f"{spec}: cannot import {module_name}: {error}") from None
    implementation_class = getattr(module, class_name, None)
    if not isinstance(implementation_class, type) or not issubclass(implementation_class, Implementation):
        raise AdapterError(f"{spec}: {module_name}.{class_name} is not a gilsan_impl.Implementation subclass")
    return implementation_class()


def select(spec, capabilities):
    """Makes `spec` the current implementation and returns None, or returns why it cannot run a
    scenario that needs `capabilities` (a list of names from base.CAPABILITIES)."""
    global _current
    try:
        implementation = load(spec)
        implementation.require_installed()
        implementation.require_driver()
    except Unavailable as error:
        return str(error)
    missing = [name for name in capabilities if name not in implementation.capabilities]
    if missing:
        lacks = "; ".join(implementation.lacks.get(name, f"no {name}") for name in missing)
        return f"{implementation.name} lacks {', '.join(missing)}: {lacks}"
    _current = implementation
    os.environ["GILSAN_IMPL"] = spec
    return None


def describe():
    """What the results of a run name besides the outcome: {"version": the current implementation's
    packages, "platform": the GPU, the driver and Python}. Calls the driver (cuInit, device 0)."""
    import platform as python_platform

    return {"version": current().version(), "platform": f"{_gpu_and_driver()}; Python {python_platform.python_version()}"}


def _gpu_and_driver():
    import ctypes

    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        name = ctypes.create_string_buffer(256)
        version = ctypes.c_int()
        device = ctypes.c_int()
        if cuda.cuInit(0) != 0 or cuda.cuDeviceGet(ctypes.byref(device), 0) != 0:
            return "no usable GPU"
        cuda.cuDeviceGetName(name, 256, device)
        cuda.cuDriverGetVersion(ctypes.byref(version))
    except OSError as error:
        return f"no CUDA driver ({error})"
    described = f"{name.value.decode(errors='replace')}, CUDA driver API {version.value // 1000}.{version.value % 1000 // 10}"
    try:  # the driver's own version, which only NVML knows; the simulated driver has no NVML
        nvml = ctypes.CDLL("libnvidia-ml.so.1")
        text = ctypes.create_string_buffer(80)
        if nvml.nvmlInit_v2() == 0 and nvml.nvmlSystemGetDriverVersion(text, 80) == 0:
            described += f", driver {text.value.decode()}"
        nvml.nvmlShutdown()
    except (OSError, AttributeError):
        pass
    return described


def current():
    """The implementation this run is for (select() made it); from $GILSAN_IMPL when a scenario runs
    as a plain script, else gilsan's reference module."""
    global _current
    if _current is None:
        _current = load(os.environ.get("GILSAN_IMPL", "reference"))
        _current.require_installed()
    return _current


__all__ = ["CAPABILITIES", "AdapterError", "describe", "Implementation", "Unavailable", "BUILTIN", "current", "load", "select"]
