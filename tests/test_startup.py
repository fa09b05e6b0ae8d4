"""Start-up: what a run imports, and that the shortcuts taken for speed change no output.

No timings here (bench/startup.py measures them): these tests pin the behaviour that makes
start-up fast, in fresh interpreters, so that a new import at module level shows up as a
failure rather than as a slower pre-commit hook.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from hypothesis import given, settings
from hypothesis import strategies as st

import fablint

ROOT = Path(__file__).resolve().parents[1]


def _python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("FABLINT_DEBUG", None)
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=env, timeout=120, check=False)


ENTRY = "import sys; from fablint.entry import main; sys.exit(main())"
FULL_CLI = "import sys; from fablint.cli import main; sys.exit(main())"


def test_version_from_the_entry_point_is_what_the_full_command_line_prints() -> None:
    fast = _python(ENTRY, "--version")
    full = _python(FULL_CLI, "--version")
    assert (fast.returncode, fast.stdout, fast.stderr) == (full.returncode, full.stdout,
                                                          full.stderr)
    assert fast.stdout == f"fablint {fablint.__version__}\n"
    assert fast.returncode == 0


def test_version_imports_no_command_line() -> None:
    probe = _python("import sys; from fablint.entry import main; main(); "
                    "print(sorted(m for m in sys.modules if m.startswith(('fablint', 'typer', "
                    "'pydantic', 'rich'))))", "--version")
    assert probe.returncode == 0, probe.stderr
    loaded = json.loads(probe.stdout.splitlines()[-1].replace("'", '"'))
    assert loaded == ["fablint", "fablint.entry"], loaded


def test_version_with_other_arguments_goes_through_the_command_line() -> None:
    run = _python(ENTRY, "--version", "lint")
    assert run.returncode == 0
    assert run.stdout == f"fablint {fablint.__version__}\n"
    helped = _python(ENTRY, "--help")
    assert helped.returncode == 0 and "--version" in helped.stdout


def test_lint_of_one_file_through_the_entry_point() -> None:
    config = ROOT / "fixtures" / "demo" / "leaf1.cfg"
    run = _python(ENTRY, "lint", str(config), "--format", "json")
    assert run.returncode in (0, 1), run.stderr
    doc = json.loads(run.stdout)
    assert doc["summary"]["files"] == 1


def test_the_command_line_imports_no_reporter_and_no_intent() -> None:
    """A run renders one format: each reporter is imported when its format is asked for, the
    intended-cabling reader only by runs that have an intent, rich only by the text report."""
    probe = _python("import sys, fablint.cli; print(' '.join(sorted(sys.modules)))")
    assert probe.returncode == 0, probe.stderr
    loaded = set(probe.stdout.split())
    assert "fablint.report" in loaded
    assert not {m for m in loaded if m.startswith("fablint.report.")}, loaded
    assert "fablint.intent" not in loaded
    assert not {m for m in loaded if m == "rich" or m.startswith("rich.")}


def test_every_format_renders_through_the_lazy_reporters() -> None:
    from fablint.report import REPORTERS

    assert list(REPORTERS) == ["text", "json", "sarif", "junit", "github", "gitlab", "concise",
                               "markdown"]
    demo = ROOT / "fixtures" / "demo"  # planted faults: every format has something to say
    for name in REPORTERS:
        run = _python(ENTRY, "lint", str(demo), "--format", name, "--no-color")
        assert run.returncode == 1, (name, run.stderr)
        assert run.stdout.strip(), name
        assert "Traceback" not in run.stderr


def test_an_ethernet_lint_builds_only_the_validators_it_uses() -> None:
    """Model classes build their validators when first used (``fablint.model._Model``): a lint
    of an EOS switch builds none of the device's (``fablint.plainbuild`` makes its objects
    as validation would, tests/test_plain_build.py), nor any InfiniBand, topology or
    fabric-wide class's; once the device's validator is built, it comes with every class it
    holds, each built once."""
    probe = _python(
        "import sys, json; from fablint import model; "
        "from fablint.config import load_config; from fablint.profiles import load_policy; "
        "from fablint.engine import LintOptions, lint; "
        "lint(LintOptions(paths=[sys.argv[1]], config=load_config(None), "
        "policy=load_policy(), jobs=1)); "
        "print(json.dumps({n: c.__pydantic_complete__ for n, c in vars(model).items() "
        "if isinstance(c, type) and issubclass(c, model._Model) and c is not model._Model}))",
        str(ROOT / "fixtures" / "demo" / "leaf1.cfg"))
    assert probe.returncode == 0, probe.stderr
    built = json.loads(probe.stdout.splitlines()[-1])
    from fablint import model

    def held(cls: type, seen: set[str]) -> set[str]:
        for inner in model._held_models(cls):
            if inner.__name__ not in seen:
                seen.add(inner.__name__)
                held(inner, seen)
        return seen

    device = held(model.Device, {"Device", "InputFile"})
    assert not [name for name in sorted(device) if built[name]]
    unused = {"Fabric", "Topology", "Cable", "TopologyNode", "IbNode", "IbPort", "Link"}
    assert not [name for name in sorted(unused) if built[name]]
    model.Device.model_rebuild()  # (in this process) what validation needs comes with it
    assert all(getattr(model, name).__pydantic_complete__ for name in held(model.Device, set()))


def test_a_lint_with_its_policy_cached_builds_no_policy_or_config_validator(
        tmp_path: Path) -> None:
    """A lint without a fablint.yaml takes its validated policy from the entries that ship
    with fablint (``fablint/shipped_cache``), from its first run on and with an empty cache
    of its own, and the default project settings as they are: neither the policy sections'
    nor ``ProjectConfig``'s validator is built."""
    code = (
        "import sys, json; from fablint import policy, config; "
        "from fablint.lintcmd import _load_profile, _load_project; "
        "from fablint.engine import LintOptions, lint; "
        "project = _load_project([sys.argv[1]], None); "
        "lint(LintOptions(paths=[sys.argv[1]], config=project, "
        "policy=_load_profile(project, None), jobs=1)); "
        "print(json.dumps([n for n, c in [*vars(policy).items(), *vars(config).items()] "
        "if isinstance(c, type) and hasattr(c, '__pydantic_complete__') "
        "and c.__pydantic_complete__]))")
    switch = tmp_path / "leaf1.cfg"  # in a folder without a fablint.yaml
    switch.write_text((ROOT / "fixtures" / "demo" / "leaf1.cfg").read_text(encoding="utf-8"),
                      encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FABLINT_CACHE_DIR": str(tmp_path / "c")}
    runs = [subprocess.run([sys.executable, "-c", code, str(switch)], capture_output=True,
                           text=True, env=env, timeout=120, check=False) for _ in range(3)]
    assert all(run.returncode == 0 for run in runs), runs[-1].stderr
    built = [json.loads(run.stdout.splitlines()[-1]) for run in runs]
    assert built == [[], [], []], built


def test_a_fabric_built_without_validation_is_the_validated_one() -> None:
    from fablint.ingest import new_fabric, parse_file
    from fablint.model import Fabric

    switch = parse_file(str(ROOT / "fixtures" / "demo" / "leaf1.cfg"), True)
    cabling = parse_file(str(ROOT / "fixtures" / "lldp" / "leaf1_show_lldp_neighbors_detail.txt"),
                         True)
    dump = parse_file(str(ROOT / "fixtures" / "ib" / "ibnetdiscover-noisy-ndr.topo"), True)
    assert switch.devices and cabling.links and dump.ib_nodes
    parts = {"devices": {d.name: d for d in switch.devices},
             "links": [*cabling.links, *dump.links], "ib_nodes": list(dump.ib_nodes)}
    validated, constructed = Fabric(**parts), Fabric.model_construct(**parts)
    assert constructed == validated
    assert constructed.model_fields_set == validated.model_fields_set
    assert constructed.model_dump_json() == validated.model_dump_json()
    assert Fabric.model_construct() == Fabric()
    made = new_fabric(dict(parts))
    assert made == validated and made.model_fields_set == validated.model_fields_set
    assert made.model_dump_json() == validated.model_dump_json()
    assert new_fabric({}) == Fabric() and new_fabric({}).model_fields_set == set()


def test_a_fabric_made_for_a_unit_leaves_no_cyclic_garbage() -> None:
    """The engine makes a Fabric per parsed unit while the collector is paused: anything cyclic
    it leaves behind stays until the run ends (``model_construct`` left 35 KB a call)."""
    import gc

    from fablint.ingest import new_fabric

    new_fabric({})  # (anything made once, on first use)
    gc.collect()
    gc.disable()
    try:
        for _ in range(10):
            new_fabric({"devices": {}, "links": [], "ib_nodes": []})
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_forked_workers_share_what_before_fork_builds() -> None:
    from fablint.parallel import PARALLEL_MIN_BYTES, map_files

    calls: list[int] = []
    items = list(range(8))
    assert map_files(abs, items, jobs=1, total_bytes=PARALLEL_MIN_BYTES,
                     before_fork=lambda: calls.append(1)) == items
    assert calls == []  # nothing forked: nothing to prepare
    assert map_files(abs, items, jobs=2, total_bytes=PARALLEL_MIN_BYTES,
                     before_fork=lambda: calls.append(1)) == items
    assert calls == [1]


# A plain `fablint lint FILES` runs without typer (fablint.lintcmd): these prove that it parses,
# prints and exits as the typer command does.

DEMO = ROOT / "fixtures" / "demo"
PLAIN_RUNS = [
    ["lint", str(DEMO / "leaf1.cfg")],
    ["lint", str(DEMO / "leaf1.cfg"), "--format", "json"],
    ["lint", "--format=sarif", str(DEMO / "leaf1.cfg")],
    ["lint", str(DEMO), "-f", "concise", "--report-only", "--fabric", str(DEMO)],
    ["lint", str(DEMO / "leaf1.cfg"), str(DEMO / "spine1.cfg"), "--no-color", "-q"],
    ["lint", str(DEMO), "--color", "--no-fixes"],
    ["lint", str(DEMO / "leaf2.cfg"), "--color", "--no-color", "-f", "json", "-f", "text"],
    ["lint", str(DEMO / "leaf1.cfg"), "--report-only", f"--fabric={DEMO}", "-f", "github"],
    ["lint", str(DEMO / "no-such-file.cfg")],  # an error: message and exit code 2
    ["lint", str(DEMO / "leaf1.cfg"), "--fabric", str(DEMO)],  # --fabric without --report-only
    ["lint", ""],
]
TYPER_RUNS = [  # not plain: typer parses, helps or fails, on both sides
    ["lint"],
    ["lint", "--help"],
    ["lint", str(DEMO / "leaf1.cfg"), "-f", "JSON"],
    ["lint", str(DEMO / "leaf1.cfg"), "--format"],
    ["lint", str(DEMO / "leaf1.cfg"), "--select", "PFC", "-f", "json"],
    ["lint", "-", "--quiet=1"],
    ["lint", "--", str(DEMO / "leaf1.cfg")],
]


def test_plain_lint_runs_print_and_exit_as_the_typer_command() -> None:
    from fablint.lintcmd import plain_arguments

    for args in PLAIN_RUNS + TYPER_RUNS:
        assert (plain_arguments(args[1:]) is not None) == (args in PLAIN_RUNS), args
        fast, full = _python(ENTRY, *args), _python(FULL_CLI, *args)
        assert (fast.returncode, fast.stdout, fast.stderr) == (
            full.returncode, full.stdout, full.stderr), args
        assert "Traceback" not in fast.stderr, args


def test_a_plain_lint_imports_neither_typer_nor_rich() -> None:
    probe = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", ENTRY, "lint", str(DEMO / "leaf1.cfg"),
         "-f", "json"], capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert probe.returncode in (0, 1), probe.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in probe.stderr.splitlines()
                if line.startswith("import time:")}
    assert "fablint.lintcmd" in imported and "fablint.engine" in imported
    assert not {m for m in imported if m.split(".")[0] in ("typer", "click", "rich")}
    assert "fablint.cli" not in imported
    typer_run = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", ENTRY, "lint", str(DEMO / "leaf1.cfg"),
         "--select", "PFC"], capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert "fablint.cli" in typer_run.stderr


def test_the_typer_command_and_run_lint_have_the_same_defaults() -> None:
    import inspect

    from fablint import cli, lintcmd

    declared = inspect.signature(cli.lint_command).parameters
    run = inspect.signature(lintcmd.run_lint).parameters
    assert list(declared) == list(run)
    assert {n: p.default for n, p in declared.items()} == {n: p.default for n, p in run.items()}


TOKENS = ["a.cfg", "dir/", "", "json", "text", "sarif", "JSON", "-", "--", "--format", "-f",
          "--format=json", "--format=", "--format=bogus", "-fjson", "-f=json", "--fabric",
          "--fabric=x", "--fabric=", "--report-only", "--color", "--no-color", "--quiet", "-q",
          "--quiet=1", "--no-fixes", "--select", "PFC", "--help", "--colour", "-qf"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=7))
def test_plain_arguments_are_read_as_typer_reads_them(tokens: list[str]) -> None:
    """Whenever ``plain_arguments`` takes a command line, typer's parse of it (the values
    ``cli.lint_command`` hands on) is the same: every other option at its default."""
    from fablint import lintcmd

    _typer_reads_the_same("lint", "run_lint", lintcmd, tokens)


def _typer_reads_the_same(command: str, run: str, module: ModuleType, tokens: list[str]) -> None:
    """When ``module.plain_arguments(tokens)`` takes the command line, ``cli`` hands ``run``
    exactly those values through typer, and every other parameter at its default."""
    import inspect

    from fablint import cli

    plain = module.plain_arguments(tokens)
    if plain is None:
        return
    received: list[dict[str, object]] = []
    original = getattr(cli, run)
    setattr(cli, run, lambda *args, **kwargs: received.append(
        dict(zip(["paths"], args, strict=False), **kwargs)))
    try:
        cli._command([command])([command, *tokens], standalone_mode=False)
    finally:
        setattr(cli, run, original)
    defaults = {n: p.default for n, p in inspect.signature(getattr(module, run)).parameters.items()
                if n != "paths"}
    assert received == [{**defaults, **plain}]


# A plain `fablint topo PATHS [--format F]` runs without typer too (fablint.topocmd).

PLAIN_TOPO_RUNS = [
    ["topo", str(DEMO)],
    ["topo", str(DEMO), "--format", "json"],
    ["topo", "--format=markdown", str(DEMO)],
    ["topo", "-f", "mermaid", str(DEMO), "-f", "svg"],
    ["topo", str(DEMO / "leaf1.cfg")],  # no cabling: message and exit code 2
    ["topo", str(DEMO / "no-such-file.cfg")],
    ["topo", ""],
]
TYPER_TOPO_RUNS = [
    ["topo"],
    ["topo", "--help"],
    ["topo", str(DEMO), "-f", "JSON"],
    ["topo", str(DEMO), "--format"],
    ["topo", str(DEMO), "--intent"],
    ["topo", "--", str(DEMO)],
]


def test_plain_topo_runs_print_and_exit_as_the_typer_command() -> None:
    from fablint.topocmd import plain_arguments

    for args in PLAIN_TOPO_RUNS + TYPER_TOPO_RUNS:
        assert (plain_arguments(args[1:]) is not None) == (args in PLAIN_TOPO_RUNS), args
        fast, full = _python(ENTRY, *args), _python(FULL_CLI, *args)
        assert (fast.returncode, fast.stdout, fast.stderr) == (
            full.returncode, full.stdout, full.stderr), args
        assert "Traceback" not in fast.stderr, args


def test_a_plain_topo_imports_neither_typer_nor_rich() -> None:
    probe = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", ENTRY, "topo", str(DEMO), "-f", "json"],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert probe.returncode in (0, 1), probe.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in probe.stderr.splitlines()
                if line.startswith("import time:")}
    assert "fablint.topocmd" in imported and "fablint.engine" in imported
    assert not {m for m in imported if m.split(".")[0] in ("typer", "click", "rich")}
    assert "fablint.cli" not in imported


def test_the_typer_topo_command_and_run_topo_have_the_same_defaults() -> None:
    import inspect

    from fablint import cli, topocmd

    declared = inspect.signature(cli.topo_command).parameters
    run = inspect.signature(topocmd.run_topo).parameters
    assert list(declared) == list(run)
    assert {n: p.default for n, p in declared.items()} == {n: p.default for n, p in run.items()}


TOPO_TOKENS = ["a.cfg", "dir/", "", "json", "text", "svg", "markdown", "JSON", "-", "--",
               "--format", "-f", "--format=json", "--format=", "--format=bogus", "-fjson",
               "-f=json", "--output", "-o", "--help", "--intent", "--formats"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TOPO_TOKENS), max_size=7))
def test_plain_topo_arguments_are_read_as_typer_reads_them(tokens: list[str]) -> None:
    """Whenever ``topocmd.plain_arguments`` takes a command line, typer's parse of it (the
    values ``cli.topo_command`` hands on) is the same: every other option at its default."""
    from fablint import topocmd

    _typer_reads_the_same("topo", "run_topo", topocmd, tokens)


ASYNCIO_PROBE = """
import sys, warnings
from fablint.entry import _import_pydantic
_import_pydantic()
assert "asyncio" not in sys.modules and "asyncio.coroutines" not in sys.modules
import fablint.lintcmd
assert "asyncio" not in sys.modules
from pydantic_core import core_schema
deprecated = core_schema.general_before_validator_function
assert deprecated.__deprecated__ and not hasattr(deprecated, "_is_coroutine")
warnings.simplefilter("error")
try:
    deprecated(lambda v, i: v, core_schema.int_schema())
except DeprecationWarning:
    print("warned")
import asyncio, asyncio.coroutines
async def job():
    return 7
assert asyncio.run(job()) == 7 and asyncio.coroutines.iscoroutinefunction(job)
print(asyncio.__file__)
"""


def test_pydantic_is_imported_without_asyncio_and_asyncio_still_works() -> None:
    """``entry._import_pydantic`` keeps asyncio out of a lint's imports with a stand-in that
    lives only while pydantic is imported: pydantic's deprecated functions are marked and
    warn as before, and a later ``import asyncio`` is the real one."""
    probe = _python(ASYNCIO_PROBE)
    assert probe.returncode == 0, probe.stderr
    warned, where = probe.stdout.split()
    assert warned == "warned" and where.endswith("asyncio/__init__.py")



HINTS_PROBE = """
import json, sys, typing
if sys.argv[1] == "entry":
    from fablint.entry import _import_pydantic
    _import_pydantic()
import typing_extensions
from pydantic_core import core_schema
lazy = [ref for cls in vars(core_schema).values() if isinstance(cls, type)
        for ref in vars(cls).get("__annotations__", {}).values()
        if isinstance(ref, typing.ForwardRef) and isinstance(ref.__forward_code__, str)]
hints = {name: repr(typing.get_type_hints(cls)) for name, cls in sorted(vars(core_schema).items())
         if isinstance(cls, type) and typing_extensions.is_typeddict(cls)}
ref = typing.ForwardRef("list[int]")
print(json.dumps({
    "lazy": len(lazy), "hints": hints,
    "restored": typing._type_convert.__code__.co_filename == typing.__file__
    and typing._type_convert("x").__forward_code__.__class__ is not str,
    "extensions": getattr(typing_extensions, "_type_convert", typing._type_convert)
    is typing._type_convert,
    "evaluated": repr(typing._eval_type(ref, {}, {})),
}))
"""


def test_forward_references_made_while_pydantic_is_imported_evaluate_alike() -> None:
    """``entry._import_pydantic`` lets ``typing`` keep the text of the string annotations
    pydantic's modules declare (core_schema's TypedDicts) instead of compiling each at once:
    every one evaluates as before, and ``typing`` is itself again afterwards."""
    fast = _python(HINTS_PROBE, "entry")
    plain = _python(HINTS_PROBE, "plain")
    assert fast.returncode == 0 and plain.returncode == 0, fast.stderr + plain.stderr
    lazy, eager = (json.loads(run.stdout) for run in (fast, plain))
    assert lazy["lazy"] > 100 and eager["lazy"] == 0  # not vacuous: core_schema's are lazy
    assert lazy["hints"] == eager["hints"] and len(lazy["hints"]) > 50
    assert lazy["restored"] and lazy["extensions"]
    assert lazy["evaluated"] == eager["evaluated"] == "list[int]"


FALLBACK_PROBE = """
import sys
sys.path.insert(0, sys.argv[1])
from fablint.entry import _import_without_asyncio
def load():
    import holds_asyncio, takes_from_asyncio
_import_without_asyncio(load)
import holds_asyncio, takes_from_asyncio
assert holds_asyncio.asyncio is sys.modules["asyncio"]
assert holds_asyncio.asyncio.__file__.endswith("asyncio/__init__.py")
print(takes_from_asyncio.Event.__module__)
"""


def test_the_asyncio_stand_in_leaves_no_trace_when_a_module_wants_asyncio(tmp_path: Path) -> None:
    """Should a future pydantic import asyncio itself, the imports made under the stand-in
    are made again for real: a module keeping it, or failing on it, gets the real asyncio."""
    (tmp_path / "holds_asyncio.py").write_text("import asyncio\n")
    (tmp_path / "takes_from_asyncio.py").write_text("from asyncio import Event\n")
    probe = _python(FALLBACK_PROBE, str(tmp_path))
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.split() == ["asyncio.locks"]

PLUGINS_PROBE = """
import os, sys
os.environ["PYDANTIC_DISABLE_PLUGINS"] = "__all__"
from fablint.entry import _plugins_unread
_plugins_unread()
from pydantic import BaseModel
class Probe(BaseModel):
    x: int
assert Probe(x="1").x == 1
assert "importlib.metadata" not in sys.modules
from pydantic.plugin._loader import get_plugins
assert tuple(get_plugins()) == ()
os.environ["PYDANTIC_DISABLE_PLUGINS"] = "some-plugin"
assert list(get_plugins()) == []  # the real loader: this environment has no pydantic plugin
loader = sys.modules["pydantic.plugin._loader"]
assert loader.__file__.endswith("_loader.py") and "importlib.metadata" in sys.modules
_plugins_unread()  # the real loader is kept
from pydantic.plugin._loader import PYDANTIC_ENTRY_POINT_GROUP
assert sys.modules["pydantic.plugin._loader"] is loader and PYDANTIC_ENTRY_POINT_GROUP
print("ok")
"""


def test_pydantic_reads_no_plugin_metadata_when_plugins_are_off() -> None:
    """``entry._plugins_unread``: with every plugin off, building a validator imports no
    ``importlib.metadata``; otherwise pydantic's own loader answers."""
    probe = _python(PLUGINS_PROBE)
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout == "ok\n"
