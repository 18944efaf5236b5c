"""One load run followed from its keyword to the socket and back: how many of our functions it walks through.

    .venv/bin/python benchmarks/load_walk.py                 # this checkout
    .venv/bin/python benchmarks/load_walk.py --root DIR      # another checkout (e.g. an older commit, exported)
    .venv/bin/python benchmarks/load_walk.py --list          # and the walk itself, one line per function

``Run Load Profile`` (LoadLibrary, Robot not running) sends ONE request (``synchronous``, ``max_requests=1``) to the
scripted SSE server of the tests; every call and return of a function of ``LoadLibrary.py``,
``llamatest/load/`` and ``llamatest/report/load.py`` is traced (``sys.setprofile``). With one request, what runs
once is the walk: the keyword, the pipeline, the engine down to the request and back, the summary, the files,
the history and the log block; what runs more than once (per SSE event, per metric, per chart) is below it.

Printed: the functions of the walk; its returns across modules (a function of one module handing its result
back to a caller in another: what a reader follows back and forth), those that land in ``pipeline``, those
between rooms (``engine``, ``workloads``, ``analysis``, ``output``; the modules of a flat load/ counted in the
room they moved to), and
how many distinct calls (caller, callee) go into ``metrics`` from other modules. Comprehensions and lambdas
count as part of the function they are written in. docs/load.md ("One run, from the keyword to the socket
and back") gives the figures before and after the rooms.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
CO_COROUTINE_LIKE = 0x80 | 0x100 | 0x200  # coroutine, iterable coroutine, async generator
INNER = ("<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>", "<lambda>", "<module>")  # part of their function


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=HERE, help="the checkout to walk (default: this one)")
    parser.add_argument("--list", action="store_true", help="print the walk, one function a line")
    args = parser.parse_args()
    root = args.root.resolve()
    sys.path[:0] = [str(root / "libraries"), str(HERE)]  # its libraries first; tests.fixtures from here
    from tests.fixtures.scripted_server import DONE, chat, start, usage

    url, proc = start()
    try:
        walk = traced_run(root, url, [[0.002, chat({"role": "assistant", "content": None})],
                                      [0.002, chat({"content": "a"})], [0.002, chat({"content": "b"})],
                                      [0, chat({}, "length")], [0, usage(2, prompt=4)], [0, DONE]])
    finally:
        proc.terminate()
        proc.join(5)
    report(walk, args.list)
    return 0


class Tracer:
    """Records each invocation of our functions (a coroutine counts once, not per resumption) and its caller."""

    def __init__(self, root: Path) -> None:
        self.ours = (str(root / "libraries" / "LoadLibrary.py"), str(root / "libraries" / "llamatest" / "load"),
                     str(root / "libraries" / "llamatest" / "report" / "load.py"))
        self.root = root / "libraries"
        self.started: set[int] = set()  # frames already counted (a coroutine resumes with the same frame)
        self.invocations: Counter = Counter()
        self.callers: dict[str, str | None] = {}  # function -> the function of ours that called it first
        self.order: list[str] = []

    def name(self, frame) -> str | None:
        file = frame.f_code.co_filename
        if not file.startswith(self.ours) or frame.f_code.co_name in INNER:
            return None
        module = Path(file).relative_to(self.root).with_suffix("").as_posix().replace("/", ".")
        return f"{module}:{frame.f_code.co_qualname}"

    def __call__(self, frame, event, arg) -> None:
        if event != "call":
            return
        name = self.name(frame)
        if name is None or id(frame) in self.started and frame.f_code.co_flags & CO_COROUTINE_LIKE:
            return
        if frame.f_code.co_flags & CO_COROUTINE_LIKE:
            self.started.add(id(frame))
        self.invocations[name] += 1
        if name not in self.callers:
            self.order.append(name)
            self.callers[name] = self.caller(frame.f_back)

    def caller(self, frame) -> str | None:
        """The nearest function of ours up the stack; None for a task the event loop runs (its result goes to no
        caller: it was spawned, not called)."""
        while frame is not None:
            name = self.name(frame)
            if name is not None:
                return name
            if frame.f_code.co_filename.endswith(("asyncio/events.py", "asyncio\\events.py")):
                return None
            frame = frame.f_back
        return None


def traced_run(root: Path, url: str, script: list) -> Tracer:
    import os

    import LoadLibrary

    try:
        from llamatest.load.workloads.datasets import Dataset
    except ImportError:  # a checkout from before the rooms
        from llamatest.load.pipeline import Dataset

    out = Path(tempfile.mkdtemp(prefix="llamatest-load-walk-"))
    from llamatest import settings

    os.environ[settings.ENV_LOAD_HISTORY] = str(out / "history")
    LoadLibrary._results = lambda: out
    library = LoadLibrary.LoadLibrary()
    dataset = Dataset("walk", ("one prompt",))
    tracer = Tracer(root)
    sys.setprofile(tracer)
    try:
        library.run_load_profile(dataset, "synchronous", max_requests=1, duration=5.0, server=url, name="walk",
                                 script=script, max_tokens=2)
    finally:
        sys.setprofile(None)
    return tracer


# The room of each module of the flat load/ of before the rooms, to compare returns across rooms.
FLAT_ROOMS = {**dict.fromkeys(("engine", "record", "profiles", "classify", "progress", "distributed"), "engine"),
              **dict.fromkeys(("routes", "datasets", "traces", "workloads"), "workloads"),
              **dict.fromkeys(("metrics", "validity", "summary", "compare", "trials", "soak", "sweep", "answers",
                               "workload_metrics", "workload_checks"), "analysis"),
              **dict.fromkeys(("results", "charts", "workload_charts", "history", "textreport"), "output")}


def module_of(name: str) -> str:
    return name.split(":")[0]


def room_of(name: str) -> str:
    """``engine``, ``workloads``, ``analysis``, ``output`` for a module of load/ (flat or in rooms), else the
    module (pipeline, LoadLibrary, report.load)."""
    parts = module_of(name).split(".")
    if parts[:2] != ["llamatest", "load"] or len(parts) < 3:
        return module_of(name)
    return parts[2] if len(parts) > 3 else FLAT_ROOMS.get(parts[2], module_of(name))


def report(t: Tracer, listing: bool) -> None:
    walk = [name for name in t.order if t.invocations[name] == 1]
    crossing = [name for name in walk if t.callers[name] and module_of(t.callers[name]) != module_of(name)]
    across_rooms = [name for name in crossing if room_of(t.callers[name]) != room_of(name)]
    into_pipeline = [name for name in crossing if module_of(t.callers[name]).endswith(".pipeline")]
    into_metrics = {(t.callers[name], name) for name in t.invocations  # distinct calling functions and callees
                    if module_of(name).endswith(".metrics") and t.callers[name]
                    and not module_of(t.callers[name]).endswith(".metrics")}
    if listing:
        for name in walk:
            caller = t.callers[name]
            mark = "  <- returns across modules" if name in crossing else ""
            print(f"{name}   (from {caller or 'the event loop'}){mark}")
    print(f"functions of ours invoked: {len(t.invocations)}; once (the walk): {len(walk)}")
    print(f"returns across modules on the walk: {len(crossing)}, of which into pipeline: {len(into_pipeline)}; "
          f"across rooms: {len(across_rooms)}")
    print(f"modules on the walk: {len({module_of(name) for name in walk})}; calls into metrics from other "
          f"modules (distinct caller and callee): {len(into_metrics)}")


if __name__ == "__main__":
    sys.exit(main())
