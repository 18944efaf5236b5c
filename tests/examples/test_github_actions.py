"""examples/ci/github-actions.yml: a workflow a user can copy, that runs what the README says."""

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / "examples" / "ci" / "github-actions.yml"


def steps() -> list[dict]:
    jobs = yaml.safe_load(WORKFLOW.read_text())["jobs"]
    assert list(jobs) == ["acceptance"]
    return jobs["acceptance"]["steps"]


def test_it_runs_the_readme_commands_in_two_processes():
    commands = [step["run"].strip() for step in steps() if "run" in step]
    assert commands == ["python3 run.py --setup-only", "python3 run.py --processes 2"]
    readme = (ROOT / "README.md").read_text()
    for command in commands:
        assert command in readme, f"{command!r} is not in the README"


def test_it_caches_the_wheel_and_models_and_keeps_the_results():
    by_action = {step["uses"].split("@")[0]: step for step in steps() if "uses" in step}
    assert by_action["actions/cache"]["with"]["path"] == "~/.cache/llamatest"
    assert "requirements*.txt" in by_action["actions/cache"]["with"]["key"]
    assert by_action["actions/upload-artifact"]["with"]["path"] == "results/"
    assert by_action["actions/upload-artifact"]["if"] == "always()"
    assert by_action["mikepenz/action-junit-report"]["with"]["report_paths"] == "results/xunit.xml"
