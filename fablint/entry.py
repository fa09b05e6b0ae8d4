"""The console entry point, kept tiny: Ctrl-C is handled from its first line.

Importing the command line (typer, pydantic, every rule and parser) takes a good part of a
second; a Ctrl-C in that time would otherwise end in a Python traceback. Until the command
line is loaded, an interrupt says ``fablint: interrupted`` and exits 130 at once (nothing has
been written yet); from then on ``fablint.cli.main`` handles it, letting a collection save what
it has.
"""

import os
import signal
import sys

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
    except OSError:  # a closed pipe: nothing more can be said, as in fablint.cli._leave
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
    from fablint.parallel import gc_paused

    plain = None
    try:
        with gc_paused():  # imports free next to nothing: collecting during them is waste
            if sys.argv[1:2] == ["lint"] and not _completing():
                # a plain `fablint lint FILES` (a pre-commit hook's) runs without typer
                from fablint import lintcmd

                plain = lintcmd.plain_arguments(sys.argv[2:])
            if plain is None:
                from fablint.cli import main as cli_main
    except KeyboardInterrupt:  # a handler installed by someone else raised it
        os.write(2, INTERRUPTED)
        os._exit(EXIT_INTERRUPTED)
    if plain is not None:
        lintcmd.main(plain)
    cli_main()


def _completing() -> bool:
    """Whether the shell asks for completions (click's ``_PROG_COMPLETE`` variable): typer
    answers those."""
    return any(name.endswith("_COMPLETE") for name in os.environ)


if __name__ == "__main__":
    sys.exit(main())
