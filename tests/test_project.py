"""The project's promises about itself: README set-up commands, CI, packaging."""

from __future__ import annotations

import re
import tomllib

from tests.conftest import REPO


def _readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```bash\n(.+?)\n```", text)


def test_readme_starts_with_the_two_setup_commands() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    commands = _readme_commands()
    assert commands[0] == "pip install . && fablint lint fixtures/demo"
    assert commands[1].startswith("pip install '.[dev]' && ")
    assert text.index(commands[1]) < text.index("## ")


def test_ci_runs_the_readme_test_command() -> None:
    test_command = _readme_commands()[1].split(" && ", 1)[1]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    lines = [line.strip() for line in ci.splitlines() if line.strip() and not line.startswith("#")]
    assert lines[0] == "set -euo pipefail"
    assert "pip install --quiet '.[dev]'" in ci and "-e" not in ci.split("'.[dev]'")[0][-10:]
    assert "ruff check ." in lines
    assert lines[-1] == test_command


def test_profiles_and_rule_docs_ship_in_the_wheel() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    include = project["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert include["rules"] == "fablint/_data/profiles"
    assert include["docs/rules"] == "fablint/_data/rules-docs"
    assert project["project"]["scripts"]["fablint"] == "fablint.entry:main"
    assert "netmiko" in " ".join(project["project"]["optional-dependencies"]["collect"])


def test_installed_package_finds_its_data_without_the_source_tree(tmp_path) -> None:
    """From a neutral folder, the installed fablint must find profiles and rule pages."""
    import subprocess
    import sys

    code = (
        "import fablint.resources as r, fablint;"
        "print(fablint.__file__); print(r.profiles_dir()); print(r.rule_docs_dir())"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True,
        env={"PATH": "/usr/bin:/bin"},
    )
    package_file, profiles, docs = run.stdout.splitlines()
    from pathlib import Path

    assert (Path(profiles) / "default.yaml").is_file()
    assert (Path(docs) / "PFC001.md").is_file()
    if not package_file.startswith(str(REPO)):  # a real (non-editable) install, as in CI
        assert profiles.endswith("_data/profiles") and docs.endswith("_data/rules-docs")


def test_readme_names_every_rule() -> None:
    from fablint.checks import REGISTRY

    text = (REPO / "README.md").read_text(encoding="utf-8")
    missing = [rule_id for rule_id in REGISTRY if rule_id not in text]
    assert not missing, f"README's rule table lacks {missing}"
    assert f"{len(REGISTRY)} rules" in text


def test_readme_example_is_the_demo_output() -> None:
    """The example in the README is what `fablint lint fixtures/demo` prints today."""
    import os

    from typer.testing import CliRunner

    from fablint.cli import app

    text = (REPO / "README.md").read_text(encoding="utf-8")
    shown = text.split("$ fablint lint fixtures/demo\n", 1)[1].split("```", 1)[0]
    cwd = os.getcwd()
    try:
        os.chdir(REPO)
        run = CliRunner().invoke(app, ["lint", "fixtures/demo", "--no-color"])
    finally:
        os.chdir(cwd)
    assert run.stdout == shown


def test_readme_topo_example_is_the_demo_output() -> None:
    import os

    from typer.testing import CliRunner

    from fablint.cli import app

    text = (REPO / "README.md").read_text(encoding="utf-8")
    shown = text.split("$ fablint topo fixtures/demo\n", 1)[1].split("```", 1)[0]
    cwd = os.getcwd()
    try:
        os.chdir(REPO)
        run = CliRunner().invoke(app, ["topo", "fixtures/demo"])
    finally:
        os.chdir(cwd)
    assert run.stdout == shown
