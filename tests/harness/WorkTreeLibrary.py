"""The checkout as git and the file system see it, before and after a run that must leave it as it was (issue 25):
a test suite never writes into the user's work tree, whatever the server under test does."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from robot.api import ExecutionResult, SkipExecution, logger
from robot.api.deco import keyword, library

from llamatest import deadlines

# Not the work tree's content: git's own files (git status itself rewrites the index), the project's venv (run.py
# manages it) and results/, where a run writes on purpose.
NOT_THE_WORK_TREE = (".git", ".venv", "results")
# At any depth: Python's bytecode cache, which any Python process importing the libraries writes (git ignores it).
BYTECODE = "__pycache__"


@library(scope="GLOBAL", auto_keywords=False)
class WorkTreeLibrary:
    """`Work Tree State` before and after, then `Work Tree Should Be As Before`."""

    @keyword("Checkout Should Be A Git Work Tree")
    def checkout_should_be_a_git_work_tree(self, root: str) -> None:
        """Skips the test, with the reason, unless ``root`` is the top of a git work tree and git runs."""
        try:
            top = _git(root, "rev-parse", "--show-toplevel").strip()
        except (OSError, subprocess.SubprocessError) as failure:
            said = (getattr(failure, "stderr", None) or str(failure)).strip()[:200]
            raise SkipExecution(f"{root} is not a git work tree, so there is no git status to compare "
                                f"(git rev-parse: {said})") from None
        if Path(top).resolve() != Path(root).resolve():
            raise SkipExecution(f"{root} is not the top of its git work tree ({top}): its git status is another's")

    @keyword("Work Tree State")
    def work_tree_state(self, root: str) -> dict:
        """``status``: the lines of ``git status --porcelain --untracked-files=all``; ``files``: every file under
        ``root`` (git-ignored ones too) outside ``.git``, ``.venv``, ``results`` and ``__pycache__``, relative to
        ``root``."""
        status = _git(root, "status", "--porcelain", "--untracked-files=all").splitlines()
        files = set()
        for folder, subfolders, names in os.walk(root):
            skipped = (*NOT_THE_WORK_TREE, BYTECODE) if folder == root else (BYTECODE,)
            subfolders[:] = [name for name in subfolders if name not in skipped]
            files.update(os.path.relpath(os.path.join(folder, name), root) for name in names)
        logger.info(f"git status: {len(status)} lines; {len(files)} files outside {', '.join(NOT_THE_WORK_TREE)}")
        return {"status": status, "files": files}

    @keyword("Work Tree Should Be As Before")
    def work_tree_should_be_as_before(self, before: dict, after: dict) -> None:
        """Fails, naming each difference, unless ``git status`` is the same and no file appeared."""
        problems = [f"git status now says: {line}" for line in after["status"] if line not in before["status"]]
        problems += [f"git status no longer says: {line}" for line in before["status"] if line not in after["status"]]
        problems += [f"new file: {name}" for name in sorted(after["files"] - before["files"])]
        if problems:
            raise AssertionError("the run changed the work tree:\n" + "\n".join(problems))

    @keyword("Child Run Should Have Run Tests")
    def child_run_should_have_run_tests(self, output: str) -> None:
        """Fails unless the robot run of ``output`` (its output.xml) ran a test that passed: a run that ran
        nothing would leave the work tree unchanged for no reason. Logs its figures."""
        stats = ExecutionResult(output).statistics.total
        logger.info(f"child run: {stats.passed} passed, {stats.failed} failed, {stats.skipped} skipped")
        if not stats.passed:
            raise AssertionError(f"the child run passed no test ({stats.failed} failed, {stats.skipped} "
                                 f"skipped): see {output}")


def _git(root: str, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True,
                          timeout=deadlines.deadline("command")).stdout
