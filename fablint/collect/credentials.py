"""SSH credentials: from the environment, a prompt, key files or ssh-agent; never from argv.

The password lives in one object that does not print it (``repr`` hides it) and a ``Secrets``
scrubber replaces it in what fablint itself writes (error messages, the manifest). A device's
saved output is never rewritten: the password is masked there only where the device echoed it
as a credential (``Secrets.mask_echoes``).
"""

from __future__ import annotations

import getpass
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from fablint.redact import mask_credential

# Names of environment variables (not secrets themselves).
PASSWORD_ENV = "FABLINT_PASSWORD"  # noqa: S105
USERNAME_ENV = "FABLINT_USERNAME"
PASSPHRASE_ENV = "FABLINT_KEY_PASSPHRASE"  # noqa: S105
MASK = "********"


class CredentialError(Exception):
    """Credentials cannot be had (no terminal to prompt on, a named variable is unset)."""


@dataclass(frozen=True)
class Credentials:
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    key_file: str | None = None
    passphrase: str | None = field(default=None, repr=False)
    use_agent: bool = True


class Secrets:
    """Every secret in play, to be masked in whatever fablint writes or prints."""

    def __init__(self, values: Iterable[str | None] = ()) -> None:
        self._values: tuple[str, ...] = ()
        for value in values:
            self.add(value)

    def add(self, value: str | None) -> None:
        """Add a secret. Safe while other threads scrub: the tuple is replaced whole."""
        if value and value not in self._values:
            # longest first, so that a secret containing another leaves no partial text
            self._values = tuple(sorted((*self._values, value), key=len, reverse=True))

    def scrub(self, text: str) -> str:
        for value in self._values:
            if value in text:
                text = text.replace(value, MASK)
        return text

    def mask_echoes(self, output: str) -> str:
        """A device's output with a secret masked only where the device echoed it as a
        credential (a password prompt, a secret-bearing field): everything else is device data
        and is saved as the device sent it (``admin_status`` stays, password ``admin`` or not).
        """
        for value in self._values:
            output = mask_credential(output, value)
        return output

    def __contains__(self, text: str) -> bool:
        return any(value in text for value in self._values)


def resolve_credentials(
    *,
    username: str | None = None,
    password_env: str = PASSWORD_ENV,
    ask_password: bool = False,
    key_file: str | None = None,
    use_agent: bool = True,
    environ: Mapping[str, str] | None = None,
    prompt: Callable[[str], str] = getpass.getpass,
    interactive: bool | None = None,
) -> Credentials:
    """Credentials for a collection from the options, the environment and a prompt."""
    env = os.environ if environ is None else environ
    password = env.get(password_env) or None
    if ask_password:
        if interactive is None:
            interactive = sys.stdin.isatty()
        if not interactive:
            raise CredentialError("--ask-password needs a terminal; set "
                                  f"{password_env} in the environment instead")
        password = prompt("SSH password: ") or None
    key_path = Path(key_file).expanduser() if key_file else None
    if key_path is not None and not key_path.is_file():
        raise CredentialError(f"SSH key file {key_file} not found")
    return Credentials(
        username=username or env.get(USERNAME_ENV) or None,
        password=password,
        key_file=str(key_path) if key_path else None,
        passphrase=env.get(PASSPHRASE_ENV) or None,
        use_agent=use_agent,
    )


def default_username() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "admin"
