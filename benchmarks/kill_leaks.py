"""Nothing left behind: ``kill -9`` of run.py, of robot or of a pabot worker in the middle of a suite, then a
look for any process of that run still alive and any port it still holds.

    .venv/bin/python benchmarks/kill_leaks.py                       # every suite, every victim
    .venv/bin/python benchmarks/kill_leaks.py --suites mcp --victims robot

Each trial starts ``python3 run.py -d TMP [--processes 2] SUITE`` with a marker in its environment
(``LLAMATEST_LEAK_PROBE``: every process the run starts inherits it: robot, pabot's workers, llama-servers,
the MCP servers llama-server spawns, Ray's processes, peers), waits until the suite has a llama-server (and,
for the MCP suite, an MCP server; for the sharded load suite, Ray) plus a few seconds, SIGKILLs the victim,
and then waits up to ``--grace`` seconds for every process with the marker to be gone. It prints one line per
trial: what was alive just before the kill, what survived the grace and the ports the survivors listened
on. Survivors are killed afterwards, so the benchmark itself leaves nothing. Exit 1 when anything survived.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import psutil

from llamatest import settings

ROOT = Path(__file__).resolve().parents[1]
MARKER = settings.ENV_LEAK_PROBE
# suite name -> (run.py arguments, the process kinds that must be up before the kill)
SUITES = {
    "mcp": (["suites/25__mcp"], ("llama-server", "mcp")),
    "router": (["suites/16__router/router.robot", "suites/16__router/router_lru.robot"], ("llama-server",)),
    "multimodal": (["suites/24__multimodal"], ("llama-server",)),
    "load": (["--include", "load", "suites/21__load/sharded.robot"], ("llama-server", "ray")),
}
VICTIMS = ("run.py", "robot", "pabot-worker")
POLL_S = 0.2


def kind(proc: psutil.Process) -> str:
    """What a process of the run is: llama-server, mcp, ray, robot, pabot, run.py, python."""
    try:
        cmd = " ".join(proc.cmdline())
        name = proc.name()
    except psutil.Error:
        return "gone"
    if name.startswith("llama-server"):
        return "llama-server"
    if "mcp/servers" in cmd:
        return "mcp"
    if name in ("raylet", "gcs_server") or "ray/" in cmd or "ray." in cmd:
        return "ray"
    if "-m pabot" in cmd or "pabot.pabot" in cmd:
        return "pabot"
    # run.py --processes starts its robots as libraries/robot_quick_exit.py (robot without Python's teardown)
    if "-m robot" in cmd or "robot.run" in cmd or "robot/run.py" in cmd or "robot_quick_exit.py" in cmd:
        return "robot"
    if "run.py" in cmd:
        return "run.py"
    return name


def marked(token: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.environ().get(MARKER) == token:
                found.append(proc)
        except psutil.Error:
            continue
    return found


def alive(token: str) -> list[psutil.Process]:
    """The marked processes that still run (a zombie waits only for its parent to read its status)."""
    found = []
    for proc in marked(token):
        try:
            if proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.Error:
            continue
    return found


def listening_ports(procs: list[psutil.Process]) -> list[int]:
    ports = []
    for proc in procs:
        try:
            ports += [c.laddr.port for c in proc.net_connections(kind="inet") if c.status == psutil.CONN_LISTEN]
        except psutil.Error:
            continue
    return sorted(ports)


def victim_of(run: psutil.Process, victim: str, token: str) -> psutil.Process | None:
    if victim == "run.py":
        return run
    for proc in marked(token):
        if kind(proc) != "robot":
            continue
        parent = proc.parent()
        is_worker = parent is not None and kind(parent) == "pabot"
        if is_worker == (victim == "pabot-worker"):
            return proc
    return None


def _tree(proc: psutil.Process) -> set[int]:
    try:
        return {proc.pid, *(c.pid for c in proc.children(recursive=True))}
    except psutil.Error:
        return {proc.pid}


@dataclass
class Trial:
    suite: str
    victim: str
    before: dict[str, int]
    survivors: list[str]
    ports: list[int]
    note: str = ""

    def line(self) -> str:
        alive = ", ".join(f"{n} {k}" for k, n in sorted(self.before.items()))
        left = ", ".join(self.survivors) or "none"
        return (f"{self.suite:<10} kill -9 {self.victim:<12} alive before: {alive or '-'}; left after: {left}; "
                f"ports held: {', '.join(map(str, self.ports)) or 'none'}{'; ' + self.note if self.note else ''}")


def wait_for(condition, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(POLL_S)
    return False


def trial(suite: str, victim: str, settle: float, grace: float, start_within: float) -> Trial:
    token = uuid.uuid4().hex
    args, needed = SUITES[suite]
    parallel = ["--processes", "2"] if victim == "pabot-worker" else []
    with tempfile.TemporaryDirectory(prefix="llamatest-kill-") as out:
        run = subprocess.Popen([sys.executable, "run.py", "-d", out, *parallel, *args], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                               env={**os.environ, MARKER: token})
        runner = psutil.Process(run.pid)
        def up() -> bool:
            return set(needed) <= {kind(p) for p in marked(token)} and victim_of(runner, victim, token) is not None

        wait_for(up, start_within)
        time.sleep(settle)  # into the suite, with its servers and fixtures at work
        ready = wait_for(up, start_within)  # a server may have been between two tests: kill when all are up
        target = victim_of(runner, victim, token)
        procs = marked(token)
        before: dict[str, int] = {}
        for proc in procs:
            before[kind(proc)] = before.get(kind(proc), 0) + 1
        # A killed pabot worker ends its part only: pabot and the other worker go on, rightly. What must end
        # is what the victim started; run.py's or robot's death ends the whole run.
        watched = _tree(target) if victim == "pabot-worker" and target is not None else None
        if target is None:
            run.kill()
        else:
            target.send_signal(signal.SIGKILL)

        def remaining() -> list[psutil.Process]:
            return [p for p in alive(token) if watched is None or p.pid in watched]

        wait_for(lambda: not remaining(), grace)
        left = remaining()
        survivors = [f"{kind(p)} pid {p.pid}" for p in left]
        ports = listening_ports(left)
        for proc in marked(token):  # the benchmark leaves nothing, whatever the run did
            try:
                proc.kill()
            except psutil.Error:
                pass
        run.wait(timeout=30)
        note = "" if ready and target is not None else (f"not ready within {start_within:g} s "
                                                        f"(victim found: {target is not None})")
        return Trial(suite, victim, before, survivors, ports, note)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suites", nargs="+", choices=list(SUITES), default=list(SUITES))
    parser.add_argument("--victims", nargs="+", choices=VICTIMS, default=list(VICTIMS))
    parser.add_argument("--settle", type=float, default=0.5, help="seconds into the suite before the kill")
    parser.add_argument("--grace", type=float, default=15.0, help="seconds for the run's processes to end")
    parser.add_argument("--start-within", type=float, default=180.0, help="seconds for the suite to get going")
    options = parser.parse_args(argv)
    leaked = 0
    for suite in options.suites:
        for victim in options.victims:
            result = trial(suite, victim, options.settle, options.grace, options.start_within)
            print(result.line(), flush=True)
            leaked += bool(result.survivors)
    print(f"kill_leaks: {leaked} of {len(options.suites) * len(options.victims)} trials left processes behind")
    return 1 if leaked else 0


if __name__ == "__main__":
    sys.exit(main())
