"""llamatest: the behaviour behind the keyword libraries, importable without Robot Framework.

The ``*Library.py`` files next to this package are thin Robot facades over it; the package never imports
them, nor Robot, except where it reads Robot's own files (`ROBOT_READERS`, inside the function that reads).

Its parts stand in `LAYERS`, bottom first: a part imports from its own layer and the layers below, never
from one above, and no two parts import each other (``tests/codebase/test_code_shape.py`` checks both).
``base`` is what every layer uses (settings, deadlines, the HTML primitives of the log); ``wire`` speaks
HTTP and SSE to a server (``http``, ``streaming``), each with its own log blocks; ``servers`` is what a
test runs against and with (processes, models, fixtures, SDK clients, fuzzing); ``traffic`` sends many
requests at once (``concurrency``, with its slot timeline chart; ``load``); ``report`` writes what a run
leaves behind (bug reports, load reports, keyword docs).
"""

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("settings", "textutil", "unicode", "neterrors", "workdir", "tags", "htmllog", "machine",
              "deadlines", "listing", "vectors")),
    ("wire", ("http", "streaming")),
    ("servers", ("models", "reference", "media", "hub", "mcp", "capabilities", "upstream_tests", "bootstrap",
                 "builds_setup", "parity", "server", "peers", "crosscheck", "clients", "fuzz")),
    ("traffic", ("concurrency", "load")),
    ("report", ("report",)),
)

# The modules (and parts) that read Robot's own files (suites, output.xml, library docs): they import Robot
# inside the function that reads, so importing them (or anything else here) never loads Robot.
ROBOT_READERS = ("listing", "parity.suites", "report")
