"""Which Python packages are present, and the one command that installs the missing ones."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import platform
import sys

from .protocol import BridgeError, emit

BASE_PACKAGES = ("torch", "transformers", "safetensors", "numpy")
# transformers needs accelerate to load GGUF files, so it comes with gguf.
GGUF_PACKAGES = ("gguf", "accelerate")
REPORTED = BASE_PACKAGES + GGUF_PACKAGES


def version_of(package: str) -> str | None:
    if importlib.util.find_spec(package) is None:
        return None
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def install_command(packages: list[str]) -> str:
    return f"{sys.executable} -m pip install {' '.join(packages)}"


def expand_needs(needs: list[str]) -> list[str]:
    """`gguf` brings `accelerate`; order and duplicates are normalised."""
    out: list[str] = []
    for name in needs:
        for pkg in GGUF_PACKAGES if name == "gguf" else (name,):
            if pkg not in out:
                out.append(pkg)
    return out


def missing(needs: list[str]) -> list[str]:
    return [p for p in expand_needs(needs) if version_of(p) is None]


def missing_message(absent: list[str]) -> str:
    install = expand_needs(list(BASE_PACKAGES) + absent)
    return f"missing Python package(s): {', '.join(absent)}; install with: {install_command(install)}"


def require(needs: list[str]) -> None:
    """Raise `missing-package` naming every absent package and the install command."""
    absent = missing(needs)
    if absent:
        raise BridgeError("missing-package", missing_message(absent))


def cuda_info() -> tuple[bool, str | None]:
    if version_of("torch") is None:
        return False, None
    import torch

    if not torch.cuda.is_available():
        return False, None
    return True, torch.cuda.get_device_name(0)


def run_check(needs: list[str]) -> int:
    """Print the result line; when something needed is missing, also an error event (exit 2)."""
    cuda, device_name = cuda_info()
    absent = missing(needs)
    result = {"python": platform.python_version(), "executable": sys.executable}
    result.update({pkg: version_of(pkg) for pkg in REPORTED})
    result.update({"cuda": cuda, "cuda_device": device_name, "missing": absent})
    emit("result", **result)
    if absent:
        emit("error", kind="missing-package", message=missing_message(absent))
        return 2
    return 0
