"""`libraries/robot_quick_exit.py` is robot with robot's return code, its output written and exit handlers run."""

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "libraries" / "robot_quick_exit.py"
SUITE = """*** Settings ***
Library    OperatingSystem

*** Test Cases ***
Passes
    No Operation

Fails
    Fail    on purpose

Leaves A Mark At Exit
    Evaluate    atexit.register(lambda: pathlib.Path(r"{mark}").write_text("ran"))    modules=atexit,pathlib
"""


def test_robot_runs_and_returns_its_code_after_the_exit_handlers(tmp_path):
    mark = tmp_path / "mark.txt"
    suite = tmp_path / "quick.robot"
    suite.write_text(SUITE.format(mark=mark))
    done = subprocess.run([sys.executable, str(SCRIPT), "--outputdir", str(tmp_path), "--log", "NONE",
                           "--report", "NONE", str(suite)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1  # one failed test, as robot says
    assert "3 tests, 2 passed, 1 failed" in done.stdout  # the console, flushed
    assert (tmp_path / "output.xml").read_text().rstrip().endswith("</robot>")
    assert mark.read_text() == "ran"  # a library's exit handler still runs
