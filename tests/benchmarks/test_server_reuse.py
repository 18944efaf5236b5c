"""benchmarks/server_reuse.py: the two bounds of what keeping servers across suite files could save."""

import importlib.util
import sys
from pathlib import Path

SPEC = importlib.util.spec_from_file_location(
    "server_reuse", Path(__file__).resolve().parents[2] / "benchmarks" / "server_reuse.py")
server_reuse = importlib.util.module_from_spec(SPEC)
sys.modules["server_reuse"] = server_reuse  # its dataclass looks itself up there
SPEC.loader.exec_module(server_reuse)
Start = server_reuse.SuiteStart


def test_consecutive_reuse_counts_the_files_that_follow_one_with_the_same_call():
    run = [Start("a", ("Start", "tiny"), 0.1, 0.02), Start("b", ("Start", "tiny"), 0.2, 0.03),
           Start("c", ("Start", "smol"), 0.4, 0.05), Start("d", ("Start", "tiny"), 0.3, 0.04)]
    (n_next, s_next), (n_any, s_any) = server_reuse.bounds(run)
    assert n_next == 1 and abs(s_next - (0.2 + 0.02)) < 1e-9  # b keeps a's server: b's start, a's stop
    assert n_any == 2 and abs(s_any - (0.2 + 0.03 + 0.3 + 0.04)) < 1e-9  # b and d: every repeated call


def test_files_without_a_set_up_are_never_counted_as_reuse():
    run = [Start("a", ("",), 0.0, 0.0), Start("b", ("",), 0.0, 0.0)]
    assert server_reuse.bounds(run) == ((0, 0), (0, 0))
