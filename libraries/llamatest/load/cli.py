"""``python -m llamatest.load``: the load engine for people outside Robot, against any OpenAI-compatible URL.

    python -m llamatest.load run --url http://127.0.0.1:8080 --profile rate --rate 4 --duration 20 --dataset sharegpt
    python -m llamatest.load run --url http://10.0.0.7:8080 --rate 40 --duration 60 --workers 8 --ray-address HEAD:6379
    python -m llamatest.load sweep --url http://127.0.0.1:8080 --dataset fixed-200 --points 4
    python -m llamatest.load compare results/load/a results/load/b

Each run writes what the keywords write (``summary.json``, ``requests.jsonl``, ``summary.csv``, the charts) into
``--output`` and keeps the run in the load history, so the next run of the same configuration is compared with
it. Exit codes: 0 done; 1 an SLO given with ``--slo`` was missed, a server-correctness flag was set, the
``--noise`` beside the run was not answered as documented, or ``compare`` found a regression; 2 bad input (one
line naming the problem and the fix).
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import socket
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import psutil
import requests

from llamatest import deadlines, settings
from llamatest.load.analysis import noise as _noise
from llamatest.load.analysis import soak, sweep, validity
from llamatest.load.analysis import trials as _trials
from llamatest.load.engine.client import Target
from llamatest.load.engine.distributed import DistributedError
from llamatest.load.engine.profiles import KINDS, Profile
from llamatest.load.engine.progress import ProgressLine
from llamatest.load.output import results
from llamatest.load.output.textreport import comparison_lines, run_lines, sweep_lines
from llamatest.load.pipeline import Checks, Plan, execute, execute_sweep
from llamatest.load.workloads import datasets
from llamatest.load.workloads.datasets import Dataset
from llamatest.load.workloads.noise import KINDS as NOISE_KINDS
from llamatest.load.workloads.noise import NoiseSpec

API_KEY_ENV = settings.ENV_API_KEY
EXIT_OK, EXIT_MISSED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad input: the message names the problem and the fix, on one line."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m llamatest.load", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run one load profile")
    _target_options(run)
    run.add_argument("--profile", default="rate", help=f"one of {', '.join(KINDS)} (default rate)")
    run.add_argument("--rate", type=float, help="requests/s of the rate profile")
    run.add_argument("--users", type=int, default=1, help="virtual users of the concurrency profile")
    run.add_argument("--arrival", default="poisson", help="constant, poisson or gamma (default poisson)")
    run.add_argument("--ramp", default="", help="ramp profile: 'at_s:rate' pairs, e.g. '0:1 10:2 20:4'")
    run.add_argument("--duration", type=float, default=20.0, help="seconds measured (default 20)")
    run.add_argument("--max-requests", type=int, help="stop after this many measured requests")
    run.add_argument("--warmup", type=float, default=0.0, help="seconds sent before the measurement")
    run.add_argument("--think-time", type=float, default=0.0, help="seconds between a user's requests")
    run.add_argument("--seed", type=int, default=0, help="seed of the arrivals and the dataset sample")
    run.add_argument("--repeats", type=int, default=1, help="trials of the profile (verdicts use their spread)")
    run.add_argument("--check-answers", type=int, default=0, metavar="K",
                     help="send K sampled requests again alone afterwards and compare the answers")
    run.add_argument("--server-pid", metavar="PID|auto",
                     help="sample this server process's RSS, fds and threads for leaks (auto: the local process "
                     "listening on --url's port)")
    run.add_argument("--slo", action="append", default=[], metavar="NAME=VALUE",
                     help="a limit, e.g. ttft_p95_ms=500 or error_rate_max=0 (repeatable); missed: exit 1")
    run.add_argument("--noise", metavar="SPEC", help="hostile requests beside the profile, e.g. 'rate=2 max=30' "
                     f"(also kinds=a,b and slowloris=SECONDS; kinds: {', '.join(NOISE_KINDS)}); not answered as "
                     "documented: exit 1")
    run.add_argument("--workers", type=int, default=1, help="shard the profile over N Ray workers (default 1: no Ray)")
    run.add_argument("--ray-address", metavar="HOST:PORT", help="run the workers on the Ray cluster of this head "
                     "(`ray start --head --port PORT` there); default with --workers > 1: a local Ray instance")
    sw = sub.add_parser("sweep", help="synchronous, maximum throughput, then rates between")
    _target_options(sw)
    sw.add_argument("--points", type=int, default=4, help="rates between (default 4)")
    sw.add_argument("--users", type=int, default=4, help="users of the maximum-throughput point (default 4)")
    sw.add_argument("--duration", type=float, default=10.0, help="seconds per point (default 10)")
    sw.add_argument("--seed", type=int, default=0)
    cmp = sub.add_parser("compare", help="compare two runs (folders or summary.json files)")
    cmp.add_argument("run_a", help="the run judged (its folder or summary.json)")
    cmp.add_argument("run_b", help="the reference run")
    return parser


def _target_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--url", required=True, help="the server's base URL, e.g. http://127.0.0.1:8080")
    p.add_argument("--route", default=datasets.CHAT_ROUTE, help=f"one of {', '.join(datasets.ROUTES)}")
    p.add_argument("--dataset", default="sharegpt",
                   help="sharegpt, fixed-<tokens>, or a name of the dataset catalogue (default sharegpt)")
    p.add_argument("--count", type=int, default=200, help="prompts in the dataset (default 200)")
    p.add_argument("--dataset-param", action="append", default=[], metavar="NAME=VALUE",
                   help="a parameter of a catalogue dataset (multi-turn, shared prefix, traces), e.g. turns=4")
    p.add_argument("--max-prompt-chars", type=int, default=datasets.SHAREGPT_MAX_CHARS,
                   help=f"sharegpt: longest prompt in characters (default {datasets.SHAREGPT_MAX_CHARS}); lower it "
                   "for a small context")
    p.add_argument("--max-tokens", type=int, default=32, help="output tokens per request (default 32)")
    p.add_argument("--warm", action="store_true", help="let the prompt cache work (no cache_prompt: false); a "
                   "workload that measures the cache (multi-turn, shared prefix) is warm anyway")
    p.add_argument("--name", help="the run's name (its folder and history); default from the profile")
    p.add_argument("--output", type=Path, help="where the files go (default results/load/<name>)")
    p.add_argument("--history", type=Path, help=f"earlier runs (default ${settings.ENV_LOAD_HISTORY} or "
                   "results/load-history)")
    p.add_argument("--api-key-env", default=API_KEY_ENV, metavar="VAR",
                   help=f"environment variable holding the API key (default {API_KEY_ENV})")


def target_of(args: argparse.Namespace, keep_text: bool = False) -> Target:
    """The target, after checking that the URL answers; the API key comes from the environment only."""
    key = os.environ.get(args.api_key_env, "")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        target = Target(base_url=args.url.rstrip("/"), route=args.route, headers=headers, keep_text=keep_text)
    except ValueError as exc:
        raise UsageError(f"--url/--route: {exc}") from None
    if args.route not in datasets.ROUTES:
        raise UsageError(f"--route {args.route!r} is not a streamed text route: use one of "
                         f"{', '.join(datasets.ROUTES)}")
    try:
        resp = requests.get(f"{target.base_url}/props", headers=headers, timeout=deadlines.deadline("probe"))
    except requests.RequestException as exc:
        raise UsageError(f"{args.url} does not answer ({type(exc).__name__}): start llama-server there or "
                         "pass --url of a running server") from None
    if resp.status_code in (401, 403):
        raise UsageError(f"{args.url} refused the request ({resp.status_code}): put the API key in "
                         f"${args.api_key_env}")
    if resp.status_code != 200:
        raise UsageError(f"{args.url}/props answered {resp.status_code}: point --url at a llama-server")
    return target


def dataset_of(args: argparse.Namespace, target: Target) -> Dataset:
    """The dataset named by ``--dataset`` (``sharegpt``, ``fixed-<tokens>``, or a name ``datasets`` knows)."""
    name, count, seed = args.dataset, args.count, args.seed
    try:
        if name == "sharegpt":
            chars = args.max_prompt_chars
            prompts = datasets.sharegpt_prompts(count, seed=seed, max_chars=chars)
            return Dataset("sharegpt", tuple(prompts), {"seed": seed, "max_chars": chars})
        fixed = re.fullmatch(r"fixed-(\d+)(?:-tokens)?", name)
        if fixed:
            tokens = int(fixed.group(1))
            prompts = datasets.fixed_length_prompts(target.base_url, count, tokens, seed=seed, route=target.route,
                                                    headers=target.headers)
            return Dataset(f"fixed-{tokens}-tokens", tuple(prompts), {"seed": seed, "tokens": tokens,
                                                                      "route": target.route})
        catalog = _catalog()
        if catalog is not None:
            return catalog.load_dataset(name, base_url=target.base_url, headers=target.headers,
                                        **_params(args.dataset_param))
    except (ValueError, OSError) as exc:
        raise UsageError(f"--dataset {name}: {exc}") from None
    raise UsageError(f"unknown dataset {name!r}: use sharegpt or fixed-<tokens> (e.g. fixed-500)")


def _catalog():
    """The workloads' dataset catalogue (``llamatest.load.catalog``: multi-turn, shared prefix, traces...), when
    this checkout has it."""
    try:
        return importlib.import_module("llamatest.load.catalog")
    except ModuleNotFoundError:
        return None


def _params(pairs: list[str]) -> dict[str, Any]:
    """``["turns=4", "path=t.jsonl"]`` -> ``{"turns": 4, "path": "t.jsonl"}`` (numbers become numbers)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--dataset-param {pair!r}: write NAME=VALUE, e.g. turns=4")
        for kind in (int, float):
            try:
                out[key] = kind(value)
                break
            except ValueError:
                out[key] = value
    return out


def profile_of(args: argparse.Namespace) -> Profile:
    if args.profile not in KINDS:
        raise UsageError(f"unknown profile {args.profile!r}: use one of {', '.join(KINDS)}")
    if args.profile == "rate" and args.rate is None:
        raise UsageError("the rate profile needs --rate (requests/s, > 0), e.g. --rate 4")
    ramp = tuple(tuple(float(x) for x in pair.split(":", 1)) for pair in args.ramp.split()) if args.ramp else ()
    try:
        return Profile(kind=args.profile, users=args.users, rate=args.rate, arrival=args.arrival, ramp=ramp,
                       duration_s=args.duration, max_requests=args.max_requests, warmup_s=args.warmup,
                       think_time_s=args.think_time, seed=args.seed)
    except ValueError as exc:
        flag = re.sub(r"_s$", "", str(exc).split(" ", 1)[0]).replace("_", "-")
        raise UsageError(f"--{flag}: {exc}") from None


def shards_of(args: argparse.Namespace) -> dict[str, Any]:
    """``--workers`` and ``--ray-address`` as `Plan` fields, after checking that the head answers on its port."""
    if args.workers < 1:
        raise UsageError(f"--workers {args.workers}: give 1 or more workers, e.g. --workers 2")
    address = args.ray_address
    if address is None:
        return {"workers": args.workers}
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"--ray-address {address!r}: write HOST:PORT of the cluster's head, e.g. 10.0.0.5:6379")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=deadlines.deadline("probe")).close()
    except OSError as exc:
        raise UsageError(f"--ray-address {address}: nothing answers there ({type(exc).__name__}): start the head "
                         f"with `ray start --head --port {port}` on {host}, or give its address") from None
    return {"workers": args.workers, "ray_address": address}


def noise_of(text: str, profile: Profile) -> NoiseSpec:
    """``--noise`` as a spec bounded by the profile's time (its warm-up and measured seconds)."""
    try:
        return NoiseSpec.parse(text, profile.warmup_s + profile.duration_s)
    except ValueError as exc:
        raise UsageError(f"--noise {text!r}: {exc}") from None


def slo_of(pairs: list[str]) -> dict[str, float]:
    slo = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        try:
            sweep.parse_slo_key(name)
            slo[name] = float(value)
        except ValueError as exc:
            raise UsageError(f"--slo {pair!r}: {exc}" if sep else f"--slo {pair!r}: write NAME=VALUE, "
                             "e.g. ttft_p95_ms=500") from None
    return slo


def _plan(args: argparse.Namespace, target: Target, dataset: Dataset, profile_name: str, on_tick=None) -> Plan:
    name = re.sub(r"[^a-z0-9._-]+", "-", (args.name or f"cli-{profile_name}-{dataset.name}").lower()).strip("-.")
    cold = not (args.warm or dataset.warm)  # as the keywords do: a warm workload measures the prompt cache
    return Plan(name=name or "load", target=target, dataset=dataset, max_tokens=args.max_tokens, cold=cold,
                on_tick=on_tick)


def _places(args: argparse.Namespace, name: str) -> tuple[Path, Path]:
    out = args.output or settings.RESULTS / "load" / name
    return Path(out), Path(args.history) if args.history else settings.load_history_dir()


def pid_of(args: argparse.Namespace) -> int | None:
    if args.server_pid is None:
        return None
    if args.server_pid == "auto":
        pid = soak.server_pid(args.url)
        if pid is None:
            raise UsageError(f"no local process listens on {args.url}'s port: give --server-pid PID, or run on "
                             "the server's machine")
        return pid
    if not args.server_pid.isdigit() or not psutil.pid_exists(int(args.server_pid)):
        raise UsageError(f"--server-pid {args.server_pid}: no such process; give the server's pid or 'auto'")
    return int(args.server_pid)


def cmd_run(args: argparse.Namespace) -> int:
    profile = profile_of(args)
    slo = slo_of(args.slo)
    if args.repeats < 1 or args.check_answers < 0:
        raise UsageError("--repeats must be >= 1 and --check-answers >= 0 (e.g. --repeats 3 --check-answers 8)")
    noise = noise_of(args.noise, profile) if args.noise else None
    shards = shards_of(args)
    target = target_of(args, keep_text=args.check_answers > 0)
    dataset = dataset_of(args, target)
    progress = ProgressLine(label=f"{profile.describe()}: ")
    plan = replace(_plan(args, target, dataset, profile.kind, on_tick=progress), noise=noise, **shards)
    outdir, history = _places(args, plan.name)
    try:
        load_run = execute(plan, profile, outdir=outdir, history_root=history, slo=slo or None,
                           checks=Checks(repeats=args.repeats, answers=args.check_answers, answer_seed=args.seed,
                                         server_pid=pid_of(args)))
    except DistributedError as exc:
        raise UsageError(f"--workers/--ray-address: {exc}") from None
    finally:
        progress.close()
    print("\n".join(run_lines(load_run)))
    missed = sweep.slo_check(load_run.summary, **slo) if slo else []
    wrong = validity.set_flags(load_run.summary, validity.SERVER_CORRECTNESS)
    if "noise" in load_run.summary:
        print("\n".join(_noise.lines(load_run.summary["noise"])))
        wrong += [] if load_run.summary["noise"]["ok"] else ["the noise was not answered as documented"]
    for line in [*(f"SLO missed: {m}" for m in missed), *(f"server correctness: {w}" for w in wrong)]:
        print(line)
    return EXIT_MISSED if missed or wrong else EXIT_OK


def cmd_sweep(args: argparse.Namespace) -> int:
    if args.points < 0 or args.users < 1 or args.duration <= 0:
        raise UsageError("--points must be >= 0, --users >= 1 and --duration > 0 (e.g. --points 4 --users 4)")
    target = target_of(args)
    dataset = dataset_of(args, target)
    plan = _plan(args, target, dataset, "sweep")
    outdir, history = _places(args, plan.name)
    base = Profile(kind="synchronous", arrival="poisson", duration_s=args.duration, seed=args.seed)
    sweep_run = execute_sweep(plan, base, outdir=outdir, history_root=history, k=args.points, users=args.users)
    print("\n".join(sweep_lines(sweep_run)))
    return EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    summaries = []
    for given in (args.run_a, args.run_b):
        path = Path(given)
        path = path / "summary.json" if path.is_dir() else path
        try:
            summaries.append(results.load_summary(path))
        except (OSError, ValueError) as exc:
            raise UsageError(f"{given}: {exc} (give a run folder holding summary.json, or the file)") from None
    cmp = _trials.compare(*summaries)
    print("\n".join(comparison_lines(f"{args.run_a} against {args.run_b}", cmp)))
    return EXIT_MISSED if cmp["verdict"] == "regressed" else EXIT_OK


COMMANDS = {"run": cmd_run, "sweep": cmd_sweep, "compare": cmd_compare}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130

