"""The console entry point, kept tiny: Ctrl-C is handled from its first line.

Importing the command line (typer, pydantic, every rule and parser) takes a good part of a
second; a Ctrl-C in that time would otherwise end in a Python traceback. Until the command
line is loaded, an interrupt says ``fablint: interrupted`` and exits 130 at once (nothing has
been written yet); from then on ``fablint.cli.main`` handles it, letting a collection save what
it has.
"""

import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterator

INTERRUPTED = b"fablint: interrupted\n"
EXIT_INTERRUPTED = 130


def _interrupted_while_starting(signum: int, frame: object) -> None:
    os.write(2, INTERRUPTED)
    os._exit(EXIT_INTERRUPTED)


def _print_version() -> None:
    """``fablint --version``, answered before the command line is imported (a tenth of the
    time): the same line typer prints for the option, then exit 0."""
    from fablint import __version__

    try:
        sys.stdout.write(f"fablint {__version__}\n")
        sys.stdout.flush()
    except OSError:  # a closed pipe: nothing more can be said, as in fablint.lintcmd._leave
        pass


def main() -> None:
    """Console entry point: install the start-up interrupt handler, then run the CLI."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not ignored (nohup, &)
        signal.signal(signal.SIGINT, _interrupted_while_starting)
    if sys.argv[1:] == ["--version"]:
        _print_version()
        return
    # pydantic looks for plugins in every installed distribution's entry points when it
    # builds its first validator (a tenth of the start-up in a large environment); fablint's
    # models are its own business. A user's own setting of the variable is kept.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    _plugins_unread()
    from fablint.parallel import gc_paused

    plain = None
    try:
        with gc_paused():  # imports free next to nothing: collecting during them is waste
            _import_pydantic()
            if sys.argv[1:2] == ["lint"] and not _completing():
                # a plain `fablint lint FILES` (a pre-commit hook's) runs without typer
                from fablint import lintcmd as command

                plain = command.plain_arguments(sys.argv[2:])
            elif sys.argv[1:2] == ["topo"] and not _completing():
                from fablint import topocmd as command  # (so does a plain `fablint topo`)

                plain = command.plain_arguments(sys.argv[2:])
            if plain is None:
                from fablint.cli import main as cli_main
    except KeyboardInterrupt:  # a handler installed by someone else raised it
        os.write(2, INTERRUPTED)
        os._exit(EXIT_INTERRUPTED)
    if plain is not None:
        command.main(plain)
    cli_main()


def _import_pydantic() -> None:
    """Import pydantic (what fablint's modules take from it) without importing asyncio.

    On Python 3.11 and 3.12, ``typing_extensions.deprecated`` imports ``asyncio.coroutines``
    (all of asyncio: sockets, SSL, event loops; a tenth of a one-file lint) to ask whether
    each function it decorates is a coroutine function, and pydantic decorates some at
    import. Until then a stand-in answers as asyncio would (nothing can carry asyncio's own
    coroutine mark before asyncio exists); it is removed at once, and whatever imports
    asyncio later gets the real one. When asyncio is there already, nothing is done.
    """
    _import_without_asyncio(_load_pydantic)


def _load_pydantic() -> None:
    with _forward_references_compiled_when_used():
        from pydantic import (  # noqa: F401  (the modules fablint's imports load)
            BaseModel,
            ConfigDict,
            Field,
            PrivateAttr,
            TypeAdapter,
            ValidationError,
            field_validator,
            model_validator,
        )
        from pydantic_core import core_schema  # noqa: F401


@contextlib.contextmanager
def _forward_references_compiled_when_used() -> Iterator[None]:
    """While pydantic is imported, the forward references ``typing`` makes of string
    annotations are compiled when evaluated rather than when made.

    ``pydantic_core.core_schema`` alone declares some 90 TypedDicts, and Python 3.11 to 3.13
    compile each of their string annotations into a ``typing.ForwardRef`` at once (some 700
    ``compile`` calls, a twentieth of a one-file lint) though nothing ever evaluates them.
    Here ``typing._type_convert`` makes the same ForwardRef holding the text instead of its
    code, which every evaluation (``ForwardRef._evaluate``, typing_extensions') hands to
    ``eval`` alike; the real function is back as soon as the imports are done.
    """
    import typing

    convert = getattr(typing, "_type_convert", None)
    if convert is None or sys.version_info >= (3, 14) or \
            "__forward_code__" not in getattr(typing.ForwardRef, "__slots__", ()):
        yield
        return
    import typing_extensions  # noqa: F401  (it keeps typing's own _type_convert: first)

    forward_ref = typing.ForwardRef

    def lazy(arg: object, module: object = None, *, allow_special_forms: bool = False) -> object:
        if not isinstance(arg, str) or not arg:
            return convert(arg, module, allow_special_forms=allow_special_forms)
        ref = forward_ref.__new__(forward_ref)
        ref.__forward_arg__ = arg
        ref.__forward_code__ = f"({arg},)[0]" if arg[0] == "*" else arg  # as __init__ would
        ref.__forward_evaluated__ = False
        ref.__forward_value__ = None
        ref.__forward_is_argument__ = True
        ref.__forward_is_class__ = allow_special_forms
        ref.__forward_module__ = module
        return ref

    typing._type_convert = lazy  # type: ignore[attr-defined]
    try:
        yield
    finally:
        typing._type_convert = convert  # type: ignore[attr-defined]


def _import_without_asyncio(load: Callable[[], None]) -> None:
    """Run the imports of ``load`` with the asyncio stand-in in place, and make sure it left
    no trace: should an import fail under it, or a module keep it (a future version importing
    asyncio itself), the modules imported meanwhile are dropped and imported again for real.
    Extension modules are kept: some (PyO3's) can be initialised only once."""
    if "asyncio" in sys.modules:
        return
    import inspect
    import types
    from importlib.machinery import EXTENSION_SUFFIXES

    package = types.ModuleType("asyncio")
    coroutines = types.ModuleType("asyncio.coroutines")
    mark = object()

    def iscoroutinefunction(func: object) -> bool:
        return inspect.iscoroutinefunction(func) or getattr(func, "_is_coroutine", None) is mark

    coroutines.__dict__.update(_is_coroutine=mark, iscoroutinefunction=iscoroutinefunction)
    package.coroutines = coroutines  # type: ignore[attr-defined]
    stand_ins = {"asyncio": package, "asyncio.coroutines": coroutines}
    before = set(sys.modules)
    sys.modules.update(stand_ins)
    clean = True
    try:
        load()
    except Exception:  # anything: the imports run again below, where a real error is raised
        clean = False
    finally:
        for name, module in stand_ins.items():
            if sys.modules.get(name) is module:
                del sys.modules[name]
    added = [name for name in sys.modules if name not in before]
    kept = {id(package), id(coroutines), id(iscoroutinefunction), id(mark)}
    if clean and not any(id(value) in kept for name in added
                         for value in getattr(sys.modules[name], "__dict__", {}).values()):
        return
    for name in added:
        origin = getattr(getattr(sys.modules[name], "__spec__", None), "origin", None) or ""
        if not origin.endswith(tuple(EXTENSION_SUFFIXES)):
            del sys.modules[name]
    load()


_PLUGIN_LOADER = "pydantic.plugin._loader"
_NO_PLUGINS = ("__all__", "1", "true")


def _plugins_unread() -> None:
    """Spare the import of ``importlib.metadata`` (a twentieth of a one-file lint) when
    pydantic's plugins are off.

    pydantic imports its plugin loader, and with it ``importlib.metadata``, when it builds its
    first validator, even when ``PYDANTIC_DISABLE_PLUGINS`` turns every plugin off and the
    loader's ``get_plugins`` returns nothing without reading any metadata. A stand-in for the
    loader answers that case so; any other question (the variable changed, another name)
    loads the real loader in its place and asks it.
    """
    if _PLUGIN_LOADER in sys.modules:
        return
    import types

    stand_in = types.ModuleType(_PLUGIN_LOADER)

    def real() -> types.ModuleType:
        if sys.modules.get(_PLUGIN_LOADER) is stand_in:
            del sys.modules[_PLUGIN_LOADER]
        import importlib

        return importlib.import_module(_PLUGIN_LOADER)

    def get_plugins() -> object:
        if os.environ.get("PYDANTIC_DISABLE_PLUGINS") in _NO_PLUGINS:
            return ()
        return real().get_plugins()

    def other(name: str) -> object:
        if name.startswith("__"):  # what the import system asks of any module
            raise AttributeError(name)
        return getattr(real(), name)

    stand_in.__dict__.update(get_plugins=get_plugins, __getattr__=other)
    sys.modules[_PLUGIN_LOADER] = stand_in


def _completing() -> bool:
    """Whether the shell asks for completions (click's ``_PROG_COMPLETE`` variable): typer
    answers those."""
    return any(name.endswith("_COMPLETE") for name in os.environ)


if __name__ == "__main__":
    sys.exit(main())
