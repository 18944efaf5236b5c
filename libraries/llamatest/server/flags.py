"""What a llama-server command line configures, read the way the pinned build reads it.

``effective_settings`` turns the arguments (and the ``LLAMA_ARG_*`` environment) a server was started
with into its settings: model file, slots, total context, batch sizes, unified KV cache, aliases,
endpoint gates and the request defaults the flags set, with llama-server's own defaults for what they
leave out. The rules come from the pinned sources: ``common/arg.cpp`` (the flags, their environment
variables; environment first, then the command line, the last occurrence winning; ``--alias`` values
accumulate in a sorted set), ``common/common.h`` (the defaults) and ``tools/server/server.cpp``
(``--parallel -1``, the server's default, means 4 slots with a unified KV cache).

What the server derives from these settings (each slot's context after rounding, the batch size capped
by the context) is computed by ``llamatest.crosscheck``, which compares it with what the server reports.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

AUTO_SLOTS = 4  # server.cpp: "n_parallel is set to auto, using n_parallel = 4 and kv_unified = true"


@dataclass(frozen=True)
class Option:
    """One llama-server flag this module reads: its spellings, the setting it sets and how.

    ``parse`` None is a switch: with ``negations`` (``--no-slots``) it is a boolean flag, whose
    environment variable must say true or false; without, it can only be turned on.
    """

    names: tuple[str, ...]
    key: str
    parse: Callable[[str], Any] | None = None
    env: str | None = None
    negations: tuple[str, ...] = ()
    group: str = "server"  # "server"; "sampling" or "request" for the request defaults it sets


def _float32(value: str) -> float:
    """The value as llama-server holds it (``std::stof``: a 32-bit float), as its JSON shows it."""
    return struct.unpack("f", struct.pack("f", float(value)))[0]


def _seed(value: str) -> int:
    return int(value) % 2**32  # std::stoul into a uint32_t: -1 is 4294967295, the "random seed" value


def _temperature(value: str) -> float:
    return max(_float32(value), 0.0)  # arg.cpp clamps a negative temperature to 0


def _alias_values(value: str) -> list[str]:
    return [alias.strip() for alias in value.split(",") if alias.strip()]


OPTIONS: tuple[Option, ...] = (
    Option(("-m", "--model"), "model", str, "LLAMA_ARG_MODEL"),
    Option(("-np", "--parallel"), "n_slots", int, "LLAMA_ARG_N_PARALLEL"),
    Option(("-c", "--ctx-size"), "n_ctx", int, "LLAMA_ARG_CTX_SIZE"),
    Option(("-b", "--batch-size"), "n_batch", int, "LLAMA_ARG_BATCH"),
    Option(("-ub", "--ubatch-size"), "n_ubatch", int, "LLAMA_ARG_UBATCH"),
    Option(("-kvu", "--kv-unified"), "kv_unified", env="LLAMA_ARG_KV_UNIFIED",
           negations=("-no-kvu", "--no-kv-unified")),
    Option(("--kv-unified-per-slot",), "kv_unified_per_slot", int, "LLAMA_ARG_KV_UNIFIED_PER_SLOT"),
    Option(("-a", "--alias"), "aliases", _alias_values, "LLAMA_ARG_ALIAS"),
    Option(("--embedding", "--embeddings"), "embeddings", env="LLAMA_ARG_EMBEDDINGS"),
    Option(("--metrics",), "endpoint_metrics", env="LLAMA_ARG_ENDPOINT_METRICS"),
    Option(("--props",), "endpoint_props", env="LLAMA_ARG_ENDPOINT_PROPS"),
    Option(("--slots",), "endpoint_slots", env="LLAMA_ARG_ENDPOINT_SLOTS", negations=("--no-slots",)),
    # request defaults: a request that does not set the field runs with the flag's value. The sampling ones
    # live in common_params.sampling; the others are copied into each request by server-schema.cpp.
    Option(("-s", "--seed"), "seed", _seed, group="sampling"),
    Option(("--temp", "--temperature"), "temperature", _temperature, "LLAMA_ARG_TEMPERATURE", group="sampling"),
    Option(("--top-k",), "top_k", int, "LLAMA_ARG_TOP_K", group="sampling"),
    Option(("--top-p",), "top_p", _float32, "LLAMA_ARG_TOP_P", group="sampling"),
    Option(("--min-p",), "min_p", _float32, "LLAMA_ARG_MIN_P", group="sampling"),
    Option(("--repeat-last-n",), "repeat_last_n", int, group="sampling"),
    Option(("--repeat-penalty",), "repeat_penalty", _float32, "LLAMA_ARG_REPEAT_PENALTY", group="sampling"),
    Option(("--presence-penalty",), "presence_penalty", _float32, "LLAMA_ARG_PRESENCE_PENALTY", group="sampling"),
    Option(("--frequency-penalty",), "frequency_penalty", _float32, "LLAMA_ARG_FREQUENCY_PENALTY", group="sampling"),
    Option(("--keep",), "n_keep", int, group="request"),
    Option(("-n", "--predict", "--n-predict"), "n_predict", int, "LLAMA_ARG_N_PREDICT", group="request"),
)

DEFAULTS: Mapping[str, Any] = {
    "model": None, "n_slots": -1, "n_ctx": None, "n_batch": 2048, "n_ubatch": 512, "kv_unified": False,
    "kv_unified_per_slot": 0, "aliases": [], "embeddings": False, "endpoint_metrics": False,
    "endpoint_props": False, "endpoint_slots": True,
}

FLAG_NAMES: Mapping[str, str] = {key: next(o.names[-1] for o in OPTIONS if o.key == key)
                                 for key in dict.fromkeys(o.key for o in OPTIONS)}  # setting -> its long flag
SAMPLING_KEYS = frozenset(option.key for option in OPTIONS if option.group == "sampling")
TRUTHY = ("on", "enabled", "true", "1")
FALSEY = ("off", "disabled", "false", "0")
_BY_NAME = {name: (option, True) for option in OPTIONS for name in option.names}
_BY_NAME.update({name: (option, False) for option in OPTIONS for name in option.negations})


def normalized(arg: str) -> str:
    """The flag as llama-server looks it up: in a ``--long`` flag, ``_`` counts as ``-``."""
    return arg.replace("_", "-") if arg.startswith("--") else arg


def _set(values: dict, option: Option, value: Any) -> None:
    if option.key == "aliases":  # every --alias adds to one set
        values["aliases"] = sorted({*values.get("aliases", []), *value})
    else:
        values[option.key] = value


def _from_env(env: Mapping[str, str]) -> dict:
    values: dict = {}
    for option in OPTIONS:
        raw = env.get(option.env) if option.env else None
        if raw is None:
            continue
        if option.parse is not None:
            _set(values, option, option.parse(raw))
        elif raw in TRUTHY:
            _set(values, option, True)
        elif option.negations and raw in FALSEY:
            _set(values, option, False)
        elif option.negations:
            raise ValueError(f"{option.env}={raw!r} is not a boolean value")
    return values


def _apply_args(args: list[str], values: dict) -> None:
    """Applies the flags of ``args`` this module knows to ``values``, in order; the others are skipped."""
    index = 0
    while index < len(args):
        option, positive = _BY_NAME.get(normalized(args[index]), (None, True))
        if option is not None and option.parse is not None:
            if index + 1 >= len(args):
                raise ValueError(f"llama-server flag {args[index]} has no value")
            _set(values, option, option.parse(args[index + 1]))
            index += 1
        elif option is not None:
            _set(values, option, positive)
        index += 1


def effective_settings(args: Iterable[str], env: Mapping[str, str] | None = None) -> dict:
    """The settings of a server started with the flags ``args`` (its command line without the binary)
    and the environment ``env`` (only its ``LLAMA_ARG_*`` variables matter).

    Returns a dict: ``model``, ``n_slots``, ``n_ctx`` (total; 0 means the model's training context),
    ``n_batch``, ``n_ubatch``, ``kv_unified``, ``kv_unified_per_slot``, ``aliases`` (sorted; the model
    path when none is given), ``embeddings``, ``endpoint_slots``, ``endpoint_props``,
    ``endpoint_metrics``, ``request_defaults`` (the request fields the flags set, e.g.
    ``{"seed": 42, "temperature": 0.5, "n_keep": 4}``; those in ``SAMPLING_KEYS`` are sampling settings)
    and ``flags`` (the arguments as given).
    """
    args = [str(arg) for arg in args]
    values = {**DEFAULTS, **_from_env(env or {})}
    _apply_args(args, values)
    _apply_server_rules(values)
    request_keys = dict.fromkeys(option.key for option in OPTIONS if option.group != "server")
    request_defaults = {key: values.pop(key) for key in request_keys if key in values}
    return {**values, "request_defaults": request_defaults, "flags": args}


def _apply_server_rules(values: dict) -> None:
    """What llama-server's main (server.cpp) changes in the parsed settings before it loads the model."""
    if values["embeddings"] and values["n_batch"] > values["n_ubatch"]:
        values["n_batch"] = values["n_ubatch"]  # embeddings need the whole input in one ubatch
    if values["n_slots"] < 0:  # the server's auto mode
        values["n_slots"], values["kv_unified"] = AUTO_SLOTS, True
    if values["n_ctx"] is None:  # no --ctx-size: --kv-unified-per-slot sizes the pool, else the model does
        values["n_ctx"] = values["n_slots"] * values["kv_unified_per_slot"]
    if not values["aliases"] and values["model"] is not None:
        values["aliases"] = [values["model"]]  # the model's name (its path) is its alias


# The flags whose value is a file or folder of the machine (common/arg.cpp, the FNAME, FILE, PATH and DIR
# values a server reads), and those whose value is a comma-separated list of them, with ``:SCALE`` or not.
PATH_FLAGS = frozenset({
    "-m", "--model", "-mm", "--mmproj", "-md", "--model-draft", "--spec-draft-model", "--chat-template-file",
    "--grammar-file", "-jf", "--json-schema-file", "--path", "--ui-config-file", "--webui-config-file",
    "--mcp-servers-config", "--api-key-file", "--ssl-key-file", "--ssl-cert-file", "--slot-save-path",
    "--media-path", "--models-dir", "--models-preset", "--log-file", "--log-prompts-dir",
    "-lcs", "--lookup-cache-static", "-lcd", "--lookup-cache-dynamic",
})
PATH_LIST_FLAGS = frozenset({"--lora", "--control-vector"})
SCALED_PATH_LIST_FLAGS = frozenset({"--lora-scaled", "--control-vector-scaled"})  # FNAME:SCALE,...
_ALL_PATH_FLAGS = PATH_FLAGS | PATH_LIST_FLAGS | SCALED_PATH_LIST_FLAGS


def _absolute_value(flag: str, value: str, base: str) -> str:
    """The value of the path flag ``flag`` with each relative path in it joined to ``base``."""
    def absolute(path: str) -> str:
        return os.path.join(base, path) if path and not os.path.isabs(path) else path

    def absolute_scaled(item: str) -> str:
        path, colon, scale = item.rpartition(":") if ":" in item else (item, "", "")
        return absolute(path) + colon + scale

    if flag in PATH_LIST_FLAGS:
        return ",".join(map(absolute, value.split(",")))
    if flag in SCALED_PATH_LIST_FLAGS:
        return ",".join(map(absolute_scaled, value.split(",")))
    return absolute(value)


def with_absolute_paths(args: Iterable[str], base: str | None = None) -> list[str]:
    """``args`` with every relative file or folder a flag names made absolute against ``base`` (default: this
    process's working folder), as ``--flag value`` or ``--flag=value``: a server started in a folder of its own
    (llamatest.workdir) must still find the files its caller named relative to where it runs."""
    base = base or os.getcwd()
    result: list[str] = []
    takes_path = ""  # the path flag whose value comes next
    for arg in map(str, args):
        flag, equals, value = arg.partition("=")
        if takes_path:
            arg = _absolute_value(takes_path, arg, base)
            takes_path = ""
        elif normalized(arg) in _ALL_PATH_FLAGS:
            takes_path = normalized(arg)
        elif equals and normalized(flag) in _ALL_PATH_FLAGS:
            arg = f"{flag}={_absolute_value(normalized(flag), value, base)}"
        result.append(arg)
    return result

