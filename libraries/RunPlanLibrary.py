"""What the run will execute, known before its first test: for a set-up that begins slow cases early."""

from robot.api.deco import keyword, library
from robot.utils import normalize


@library(scope="GLOBAL", version="0.1", doc_format="ROBOT", listener="SELF")
class RunPlanLibrary:
    """Tells a suite set-up which tests this run will execute, after Robot's selection (``--include``,
    ``--exclude``, ``--suite``, ``--test``, ``--rerunfailed``), pabot's split included.

    It learns them as each suite that imports it starts (a library listener), so the run's first set-up
    (``suites/__init__.robot``), or a folder's when the run starts at the folder, can begin a case that takes
    seconds of the server's own waiting only when a test of this run watches it.
    """

    ROBOT_LISTENER_API_VERSION = 3

    def __init__(self) -> None:
        self._tags: set[str] | None = None
        self._learned: set[int] = set()  # the suites whose tests were read (their children's are among them)

    def start_suite(self, data, result) -> None:  # noqa: ARG002 (the listener interface)
        """Adds the tags of every test of the suite and below, once per suite no ancestor of which was read: a run
        of several folders starts each in turn."""
        if data.parent is not None and id(data.parent) in self._learned:
            self._learned.add(id(data))
            return
        self._learned.add(id(data))
        self._tags = (self._tags or set()) | {_name(tag) for test in data.all_tests for tag in test.tags}

    @keyword("Run Includes Tests Tagged")
    def run_includes_tests_tagged(self, tag: str) -> bool:
        """True when a test of this run carries ``tag`` (compared as Robot compares tags: case, spaces and
        underscores aside)."""
        if self._tags is None:
            raise AssertionError("RunPlanLibrary learns the run's tests when a suite that imports it starts: "
                                 "import it in the suite's Settings, not with Import Library")
        return _name(tag) in self._tags


def _name(tag: str) -> str:
    """A tag as Robot compares it (robot.model.Tags): case, spaces and underscores aside."""
    return normalize(tag, ignore="_")
