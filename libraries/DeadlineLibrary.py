"""Robot facade of llamatest.deadlines: a wait written in test data, scaled like every other wait."""

from __future__ import annotations

from robot.api.deco import keyword, library
from robot.utils import timestr_to_secs

from llamatest import deadlines


@library(scope="GLOBAL", version="0.1", doc_format="ROBOT")
class DeadlineLibrary:
    """How long a wait written in test data may take now.

    A suite writes its waits as they are on a quiet machine (``${LOAD_DEADLINE}    20 s``) and asks `Deadline`
    for the figure to use (``${wait} =    Deadline    ${LOAD_DEADLINE}``), which it passes on
    (``Wait Until Keyword Succeeds    ${wait}    100 ms    …``, ``Run Process    …    timeout=${wait}``). On a
    quiet machine that is the same figure; while other processes hold the cores it is longer, up to 8 times,
    and ``$LLAMATEST_DEADLINE_SCALE`` multiplies it for a slow runner. Robot's ``Test Timeout`` and
    ``[Timeout]`` are stretched the same way by ``TimingVerdictListener``, and the Python keywords' own
    deadlines by ``llamatest.deadlines``.
    """

    @keyword("Deadline")
    def deadline(self, quiet: str) -> float:
        """``quiet`` (a Robot time: ``20 s``, ``1 minute``, ``${30}``) scaled to what the machine allows now, in
        seconds: a number, which Robot's own waits and the Python keywords' ``timeout`` take alike."""
        return deadlines.scaled(timestr_to_secs(quiet))
