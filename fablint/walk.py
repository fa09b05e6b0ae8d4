"""What a folder walk leaves out: files that are obviously not device inputs, and what a
repository's ``.gitignore`` files exclude.

A configuration repository holds much besides exports: playbooks, templates, Python, CI files.
Those are skipped without a word; files that remain and are in no supported format are reported
together (FAB002). A file named on the command line is always read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", "group_vars", "host_vars"})
"""Folders never holding inputs (hidden ones, ``.git`` included, are skipped anyway): Python
caches, JavaScript packages, Ansible variables."""

SKIP_SUFFIXES = frozenset({
    # documents, images, archives, web
    ".md", ".rst", ".adoc", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".pdf", ".zip", ".gz",
    ".tgz", ".tar", ".bz2", ".xz", ".sarif", ".html", ".css", ".js",
    # code and build files
    ".py", ".pyc", ".pyi", ".sh", ".bash", ".ps1", ".bat", ".rb", ".go", ".rs", ".c", ".h",
    ".java", ".toml", ".lock", ".ipynb", ".tf",
    # templates and INI files: a template is not a configuration until rendered, and no
    # switch export is INI (ansible.cfg, tox.ini, SONiC's pg_profile_lookup.ini)
    ".j2", ".jinja", ".jinja2", ".tpl", ".tmpl", ".ini",
})
SKIP_NAMES = frozenset({
    "fablint.yaml", ".fablint.yaml", "fablint.yml", ".fablint.yml", "fablint-baseline.json",
    ".fablint-baseline.json", "README", "LICENSE", "COPYING", "NOTICE", "AUTHORS", "CHANGELOG",
    "CODEOWNERS", "MANIFEST.tsv", "Makefile", "Dockerfile", "Jenkinsfile", "Vagrantfile",
    "Pipfile", "ansible.cfg", "setup.cfg", "package.json", "package-lock.json", "galaxy.yml",
    "requirements.yml", "requirements.yaml", "go.mod", "go.sum", ".gitignore",
})
_REQUIREMENTS = re.compile(r"(?:.*[-_])?requirements(?:[-_.].*)?\.(?:txt|in)$|constraints\.txt$")
"""pip requirement files: ``requirements.txt``, ``dev-requirements.txt``, ``requirements-ci.in``."""


def obviously_not_input(name: str) -> bool:
    """A file name no device export has (by name or suffix)."""
    if name in SKIP_NAMES or name.startswith("."):
        return True
    lowered = name.lower()
    suffix = lowered[lowered.rfind("."):] if "." in lowered else ""
    return suffix in SKIP_SUFFIXES or bool(_REQUIREMENTS.match(lowered)) or \
        lowered.startswith(("license", "changelog"))


@dataclass(frozen=True)
class _Pattern:
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool


class GitIgnore:
    """The patterns of one ``.gitignore`` (the common subset of gitignore(5)): ``#`` comments,
    ``!`` negation, a trailing ``/`` for folders only, a ``/`` elsewhere anchoring the pattern
    to the file's folder, ``*``, ``?``, ``[…]`` and ``**``. The last matching pattern wins."""

    def __init__(self, base: Path, text: str) -> None:
        self.base = base
        self.patterns: list[_Pattern] = []
        for raw in text.splitlines():
            line = raw.rstrip()
            if not line or line.startswith("#"):
                continue
            negate = line.startswith("!")
            if negate:
                line = line[1:]
            line = line.removeprefix("\\")
            dir_only = line.endswith("/")
            line = line.strip("/") if dir_only else line
            anchored = "/" in line.lstrip("/") or line.startswith("/")
            body = _translate(line.lstrip("/"))
            regex = re.compile(("" if anchored else r"(?:.*/)?") + body + "$")
            self.patterns.append(_Pattern(regex, negate, dir_only))

    def ignored(self, path: Path, is_dir: bool) -> bool | None:
        """True or False when a pattern decides about ``path`` (under ``base``), else None."""
        try:
            rel = path.relative_to(self.base).as_posix()
        except ValueError:
            return None
        verdict = None
        for pattern in self.patterns:
            if pattern.dir_only and not is_dir:
                continue
            if pattern.regex.match(rel):
                verdict = not pattern.negate
        return verdict


def _translate(pattern: str) -> str:
    out = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append(r"(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append(r"/.*")
            i += 3
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", i + 1)
            if end < 0:
                out.append(r"\[")
            else:
                body = pattern[i + 1:end].replace("\\", "\\\\")
                out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def load_gitignore(folder: Path) -> GitIgnore | None:
    path = folder / ".gitignore"
    try:
        if not path.is_file():
            return None
        return GitIgnore(folder, path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None


def gitignored(rules: list[GitIgnore], path: Path, is_dir: bool) -> bool:
    """Is ``path`` excluded by the ``.gitignore`` files of its folders (outermost first; a
    deeper file's verdict wins)?"""
    verdict = False
    for rule in rules:
        decided = rule.ignored(path, is_dir)
        if decided is not None:
            verdict = decided
    return verdict
