"""Benchmark (not a test): the highest rate each load generator holds with TTFT error p95 <= 5 ms, our engine and
guidellm, against the same null server in the same run.

    .venv/bin/python benchmarks/engine_vs_guidellm.py                      # rates 50,100,200,300,400, 10 s each
    .venv/bin/python benchmarks/engine_vs_guidellm.py --rates 100,200 --duration 5

Both tools send an open-loop constant rate to the null server (benchmarks/null_server.py), which stamps the write
of each answer's first token. A tool's TTFT error for a request is when the tool saw that token minus the stamp:
ours from the event log (perf_counter, matched by x-request-id), guidellm's from its per-request
``first_token_iteration`` (wall clock, matched by the token's text ``r<n>``). A rate is held when at least 95 % of
the requests due were answered and the error p95 is <= 5 ms. guidellm runs from a venv of its own,
``~/.cache/llamatest/guidellm-venv`` (made on first use: ``pip install guidellm==GUIDELLM_VERSION torch``),
never the project's. The null server, both tools and this script share the machine's cores.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "libraries")]

from benchmarks import null_server  # noqa: E402
from llamatest.settings import cache_dir  # noqa: E402

GUIDELLM_VERSION = "0.8.1"
ERROR_P95_MAX_MS = 5.0
ANSWERED_MIN = 0.95


def guidellm_bin() -> Path:
    """guidellm in its own venv, installed on first use."""
    venv = cache_dir() / "guidellm-venv"
    exe = venv / "bin" / "guidellm"
    if not exe.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", f"guidellm=={GUIDELLM_VERSION}", "torch"],
                       check=True)
    return exe


def fetch_stamps(url: str) -> dict[str, dict]:
    with urllib.request.urlopen(url + "/stamps", timeout=30) as resp:
        return json.loads(resp.read())


def verdict(errors_ms: list[float], answered: int, due: int) -> dict:
    p95 = float(np.percentile(errors_ms, 95)) if errors_ms else float("nan")
    held = due > 0 and answered >= ANSWERED_MIN * due and p95 <= ERROR_P95_MAX_MS
    return {"due": due, "answered": answered, "error_p50_ms": float(np.percentile(errors_ms, 50)) if errors_ms
            else float("nan"), "error_p95_ms": p95, "held": bool(held)}


def ours(url: str, rate: float, duration: float) -> dict:
    from llamatest.load.engine.client import Target
    from llamatest.load.engine.pacing import run_load_sync
    from llamatest.load.engine.profiles import Profile

    body = {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 5}
    record = run_load_sync(Target(url), Profile("rate", rate=rate, duration_s=duration, drain_timeout_s=30),
                           lambda i: body, telemetry=False)
    by_rid = {s["rid"]: s for s in fetch_stamps(url).values()}
    errors = []
    for r in record.measured:
        first = next((e.t for e in r.events if e.is_token), None)
        stamp = by_rid.get(r.request_id)
        if r.ok and first is not None and stamp:
            errors.append((first + record.t0_perf - stamp["perf"]) * 1000)
    return verdict(errors, len(errors), len(record.measured))


def guidellm(url: str, rate: float, duration: float, workdir: Path) -> dict:
    data = workdir / "prompts.jsonl"
    data.write_text("".join(json.dumps({"prompt": f"hi {i}"}) + "\n" for i in range(2000)))
    out = workdir / f"guidellm-{rate:g}.json"
    cmd = [str(guidellm_bin()), "run", "--backend", f"kind=openai_http,target={url},model=null-model",
           "--profile", f"kind=constant,rate={rate:g}", "--constraint", f"kind=max_duration,seconds={duration:g}",
           "--data", f"kind=json_file,path={data}", "--output", f"kind=json,path={out}",
           "--disable-console-interactive"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=duration + 300,
                          env={**os.environ, "GUIDELLM__LOGGING__DISABLED": "true"})
    if proc.returncode != 0:
        raise RuntimeError(f"guidellm failed ({proc.returncode}): {proc.stderr[-2000:]}")
    stamps = fetch_stamps(url)
    requests = json.loads(out.read_text())["benchmarks"][0]["requests"]
    errors = []
    for r in requests.get("successful", []):
        n = (r.get("output") or "").split(" ", 1)[0].lstrip("r")
        first = ((r.get("info") or {}).get("timings") or {}).get("first_token_iteration")
        if n in stamps and first is not None:
            errors.append((first - stamps[n]["wall"]) * 1000)
    due = int(rate * duration)
    return verdict(errors, len(errors), due)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rates", default="50,100,200,300,400", help="comma-separated requests/s")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per rate")
    parser.add_argument("--tools", default="ours,guidellm")
    args = parser.parse_args(argv)
    rates = [float(x) for x in args.rates.split(",")]
    url, proc = null_server.start()
    best: dict[str, float | None] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for tool in args.tools.split(","):
                best[tool] = None
                for rate in rates:
                    got = ours(url, rate, args.duration) if tool == "ours" else guidellm(url, rate, args.duration,
                                                                                         Path(tmp))
                    print(f"{tool:8} {rate:6g} req/s: answered {got['answered']}/{got['due']}, TTFT error p50 "
                          f"{got['error_p50_ms']:.2f} ms, p95 {got['error_p95_ms']:.2f} ms -> "
                          f"{'held' if got['held'] else 'not held'}", flush=True)
                    if got["held"]:
                        best[tool] = rate
    finally:
        proc.terminate()
        proc.join(5)
    print(f"machine: {os.cpu_count()} cores, shared by the null server, the tool and this script; "
          f"duration {args.duration:g} s per rate")
    for tool, rate in best.items():
        print(f"highest rate held (TTFT error p95 <= {ERROR_P95_MAX_MS:g} ms): {tool}: "
              f"{'none of ' + args.rates if rate is None else f'{rate:g} req/s'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
