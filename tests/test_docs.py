"""The published docs are generated from code and tested cases, and must be current."""

from __future__ import annotations

import json
import subprocess
import sys

import jsonschema

from fablint.config import config_json_schema
from tests.conftest import REPO


def test_generated_docs_are_current() -> None:
    run = subprocess.run(
        [sys.executable, str(REPO / "docs" / "generate.py"), "--check"],
        capture_output=True, text=True, check=False,
    )
    assert run.returncode == 0, f"run 'python docs/generate.py':\n{run.stdout}{run.stderr}"


def test_config_schema_accepts_a_full_example_and_rejects_typos() -> None:
    schema = json.loads((REPO / "docs" / "fablint.schema.json").read_text())
    assert schema == config_json_schema()
    good = {
        "profile": "default", "select": ["PFC", "mtu"], "ignore": ["ECN001"],
        "severity": {"ECN001": "error"}, "per-path-ignores": {"lab/*": ["MTU001"]},
        "fail-on": "warning", "exclude": ["old/*"], "policy": {"mtu": {"fabric_min": 9100}},
    }
    jsonschema.validate(good, schema)
    validator = jsonschema.Draft202012Validator(schema)
    assert list(validator.iter_errors({"selct": ["PFC"]}))
    assert list(validator.iter_errors({"fail-on": "sometimes"}))
