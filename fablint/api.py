"""fablint as a library: lint paths or parse one file from Python, with typed results.

The command line is a thin layer over the same calls, so what a script gets here is what
``fablint lint`` reports::

    import fablint

    result = fablint.lint(["configs/"], profile="nvidia-spectrum-x")
    for finding in result.findings:
        print(finding.file, finding.line, finding.rule, finding.message)
    assert result.exit_code == 1

Errors that a user can fix (a missing path, a wrong profile value) raise ``fablint.api.LintError``
with the message the command line would print.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fablint.engine import LintResult
    from fablint.ingest import FileOutcome


class LintError(Exception):
    """A path, profile or configuration that cannot be used; the message says which."""


def lint(
    paths: list[str | os.PathLike[str]] | str | os.PathLike[str],
    *,
    profile: str | None = None,
    config: str | os.PathLike[str] | None = None,
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    vendor: str | None = None,
    baseline: str | os.PathLike[str] | None = None,
    jobs: int | None = 1,
    keep_devices: bool = False,
) -> LintResult:
    """Lint files and folders as ``fablint lint`` does and return the result.

    ``profile`` is a built-in profile name or a profile file; ``config`` a ``fablint.yaml``
    (found from the paths when not given, as on the command line). ``jobs`` defaults to one
    process: a library call should not fork unless asked. ``keep_devices`` keeps the parsed
    device models on ``result.fabric.devices``.
    """
    from fablint.config import find_config, load_config
    from fablint.engine import LintOptions, UsageError
    from fablint.engine import lint as run
    from fablint.ingest import PathNotFound
    from fablint.profiles import load_policy
    from fablint.yamlio import ConfigError

    names = [os.fspath(p) for p in ([paths] if isinstance(paths, str | os.PathLike) else paths)]
    try:
        if config is not None:
            project = load_config(Path(config))
        else:
            start = Path(os.path.commonpath([str(Path(p).resolve()) for p in names])) \
                if names else Path.cwd()
            project = load_config(find_config(start) if start.exists() else None)
        policy = load_policy(profile or project.profile, project.policy,
                             project.root if profile is None else Path.cwd())
        return run(LintOptions(
            paths=names, config=project, policy=policy, select=select or [],
            ignore=ignore or [], vendor=vendor,
            baseline=Path(baseline) if baseline is not None else None, jobs=jobs,
            keep_devices=keep_devices))
    except (ConfigError, UsageError) as exc:
        raise LintError(str(exc)) from None
    except PathNotFound as exc:
        raise LintError(f"path not found: {exc}") from None


def parse(path: str | os.PathLike[str], *, vendor: str | None = None) -> FileOutcome:
    """Parse one file into the normalised model (``.devices``, ``.links``, ``.ib_nodes``,
    ``.problems``), as ``fablint parse`` prints it. Never raises on a bad file: what could not
    be read is in ``.problems`` with its line."""
    from fablint.ingest import parse_file
    from fablint.parsers import PARSERS

    if vendor is not None and vendor not in PARSERS:
        raise LintError(f"unknown vendor {vendor!r}; choose from {', '.join(PARSERS)}")
    if not Path(path).is_file():
        raise LintError(f"file not found: {path}")
    return parse_file(os.fspath(path), True, vendor)
