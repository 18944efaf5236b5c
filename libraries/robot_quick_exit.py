"""``python libraries/robot_quick_exit.py ARGS``: robot with ARGS, and no interpreter teardown once it is done.

`run.py --processes` runs its robot processes (pabot's and the serial part's) with this. After robot has
written its output and every exit handler has run (servers stopped, thread pools joined), Python would still
tear down its modules and free every object of the run: 1.0 to 2.3 s for a process of a few hundred tests,
while pabot waits for it before the next part can start. The process ends with ``os._exit`` instead, with
robot's return code, after flushing the console.
"""

import atexit
import os
import sys

_returned: list[int] = []  # robot's return code, once run_cli has returned


def _exit_now() -> None:
    """Registered before robot is imported, so it runs last of the exit handlers."""
    if _returned:  # an exception out of run_cli leaves the exit to Python, which reports it
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_returned[0])


atexit.register(_exit_now)

if __name__ == "__main__":
    from robot import run_cli

    _returned.append(run_cli(sys.argv[1:], exit=False))
    sys.exit(_returned[0])
