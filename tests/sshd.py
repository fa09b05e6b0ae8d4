"""Fake network devices on 127.0.0.1: real SSH servers (asyncssh) that behave like an Arista EOS,
a Cisco NX-OS, a SONiC or a Linux host well enough for netmiko.

Each device listens on its own loopback port with its own host key, shows its prompt, echoes
what is typed (a PTY line editor, as real devices do), pages long output until paging is turned
off (``terminal length 0``), and answers commands from a table of outputs. A device can be made
to misbehave on one command: ``hang`` (stop in the middle of the output and say nothing more) or
``disconnect`` (drop the connection in the middle of the output). ``rtt`` delays every answer to
simulate a round trip.

Used by tests/test_collect_ssh.py in-process, and by bench/run_collect.py as a subprocess:

    python -m tests.sshd --devices 1000 --rtt 0.05 --out /tmp/fakefabric

writes ``inventory.yaml`` and ``known_hosts`` into ``--out``, prints ``READY <n>`` and serves
until its standard input closes or it is terminated.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import asyncssh

Behaviour = Literal["ok", "hang", "disconnect"]
PAGE_LINES = 24

_KEY_CACHE: list[asyncssh.SSHKey] = []


def host_key(index: int = 0) -> asyncssh.SSHKey:
    """A host key; the same index gives the same key within one process (keys are not free)."""
    while len(_KEY_CACHE) <= index:
        _KEY_CACHE.append(asyncssh.generate_private_key("ssh-ed25519"))
    return _KEY_CACHE[index]


@dataclass
class FakeDevice:
    """One simulated device."""

    name: str
    platform: str
    """``eos``, ``nxos``, ``sonic`` or ``linux``."""
    outputs: dict[str, str] = field(default_factory=dict)
    username: str = "netops"
    password: str | None = None
    authorized_key: str | None = None
    """An OpenSSH public key line accepted for public-key authentication."""
    behaviour: Behaviour = "ok"
    fault_command: str | None = None
    """The command that misbehaves (default: the first command with an output)."""
    rtt: float = 0.0
    key_index: int = 0
    port: int = 0
    served: list[str] = field(default_factory=list)
    """Commands received, in order (for assertions)."""
    logins: int = 0

    @property
    def key(self) -> asyncssh.SSHKey:
        return host_key(self.key_index)

    def prompt(self) -> str:
        if self.platform in ("sonic", "linux"):
            return f"{self.username}@{self.name}:~$ "
        return f"{self.name}#"


class _Server(asyncssh.SSHServer):
    def __init__(self, device: FakeDevice) -> None:
        self.device = device

    def begin_auth(self, username: str) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return self.device.password is not None

    def validate_password(self, username: str, password: str) -> bool:
        return username == self.device.username and password == self.device.password

    def public_key_auth_supported(self) -> bool:
        return self.device.authorized_key is not None

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        if username != self.device.username or self.device.authorized_key is None:
            return False
        wanted = asyncssh.import_public_key(self.device.authorized_key)
        return key.export_public_key() == wanted.export_public_key()


async def _write_paged(
    process: asyncssh.SSHServerProcess[str], text: str, paging: bool
) -> bool:
    """Write ``text``; with paging on, stop after a page behind a ``--More--`` prompt.

    Returns False when the output was cut by the pager (as a device with paging on does).
    """
    lines = text.splitlines(keepends=True)
    if paging and len(lines) > PAGE_LINES:
        process.stdout.write("".join(lines[:PAGE_LINES - 1]) + " --More-- ")
        return False
    process.stdout.write(text)
    return True


async def _session(device: FakeDevice, process: asyncssh.SSHServerProcess[str]) -> None:
    device.logins += 1
    paging = device.platform in ("eos", "nxos")
    fault = device.fault_command or next(iter(device.outputs), None)
    if device.rtt:
        await asyncio.sleep(device.rtt)
    process.stdout.write(f"\nLast login: from 127.0.0.1\n{device.prompt()}")
    try:
        while True:
            line = await process.stdin.readline()
            if not line:
                break
            command = " ".join(line.split())
            if device.rtt:
                await asyncio.sleep(device.rtt)
            if command:
                device.served.append(command)
            if command in ("exit", "logout"):
                break
            reply = _builtin(device, command)
            if reply is not None:
                if command == "terminal length 0":
                    paging = False
                process.stdout.write(reply)
            elif command in device.outputs:
                text = device.outputs[command]
                if not text.endswith("\n"):
                    text += "\n"
                if command == fault and device.behaviour != "ok":
                    process.stdout.write(text[: len(text) // 2])
                    await process.stdout.drain()
                    if device.behaviour == "disconnect":
                        process.channel.get_connection().abort()
                        return
                    await asyncio.sleep(3600)  # hang: the prompt never comes
                    return
                if not await _write_paged(process, text, paging):
                    continue  # a pager waiting for a key: no prompt until then
            elif command:
                process.stdout.write(_unknown(device, command))
            process.stdout.write(device.prompt())
    except (asyncssh.BreakReceived, asyncssh.TerminalSizeChanged, asyncssh.SignalReceived):
        pass
    except (asyncssh.DisconnectError, BrokenPipeError, ConnectionError):
        return
    with contextlib.suppress(Exception):
        process.exit(0)


def _builtin(device: FakeDevice, command: str) -> str | None:
    if device.platform == "eos":
        if command == "terminal width 511":
            return "Width set to 511 columns.\n"
        if command == "terminal length 0":
            return "Pagination disabled.\n"
    if device.platform == "nxos" and command in ("terminal width 511", "terminal length 0"):
        return ""
    return None


def _unknown(device: FakeDevice, command: str) -> str:
    if device.platform in ("sonic", "linux"):
        return f"-bash: {command.split()[0]}: command not found\n"
    return "% Invalid input\n"


class FakeFabric:
    """Fake devices served from an event loop in a background thread."""

    def __init__(self, devices: list[FakeDevice], host: str = "127.0.0.1") -> None:
        self.devices = {d.name: d for d in devices}
        self.host = host
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._acceptors: list[Any] = []

    def __enter__(self) -> FakeFabric:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=60)

    async def _start(self) -> None:
        for device in self.devices.values():
            acceptor = await asyncssh.create_server(
                lambda d=device: _Server(d), self.host, device.port,
                server_host_keys=[device.key],
                process_factory=lambda p, d=device: _session(d, p),
                encoding="utf-8", line_editor=True, line_echo=True,
                keepalive_interval=0, login_timeout=30,
            )
            device.port = acceptor.get_port()
            self._acceptors.append(acceptor)

    def stop(self) -> None:
        async def close() -> None:
            for acceptor in self._acceptors:
                acceptor.close()
            for acceptor in self._acceptors:
                await acceptor.wait_closed()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(close(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    def known_hosts(self, path: Path, keys: dict[str, asyncssh.SSHKey] | None = None) -> Path:
        """Write a known_hosts file for every device (``keys`` overrides a device's key)."""
        lines = []
        for device in self.devices.values():
            key = (keys or {}).get(device.name, device.key)
            lines.append(f"[{self.host}]:{device.port} {key.export_public_key().decode().strip()}")
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    def inventory(self, path: Path, **extra: Any) -> Path:
        """Write a fablint inventory of every device."""
        lines = ["hosts:"]
        for device in self.devices.values():
            lines.append(f"  {device.name}:")
            lines.append(f"    address: {self.host}")
            lines.append(f"    port: {device.port}")
            lines.append(f"    platform: {device.platform}")
            lines.append(f"    username: {device.username}")
            for key, value in extra.items():
                lines.append(f"    {key}: {value}")
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path


def unused_port(host: str = "127.0.0.1") -> int:
    """A port that nothing listens on (connection refused)."""
    import socket

    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def serving(devices: list[FakeDevice]) -> Iterator[FakeFabric]:
    fabric = FakeFabric(devices)
    fabric.start()
    try:
        yield fabric
    finally:
        fabric.stop()


def _bench_devices(count: int, rtt: float, password: str) -> list[FakeDevice]:
    root = Path(__file__).resolve().parents[1] / "fixtures" / "equivalence"
    eos = (root / "eos" / "leaf1.cfg").read_text(encoding="utf-8")
    devices = []
    for n in range(count):
        name = f"leaf{n + 1:04d}"
        config = eos.replace("hostname leaf1", f"hostname {name}")
        devices.append(FakeDevice(
            name=name, platform="eos", password=password, rtt=rtt,
            outputs={"show running-config": config,
                     "show lldp neighbors detail": "Interface Ethernet1 detected 0 LLDP "
                                                   "neighbors:\n"},
        ))
    return devices


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve fake SSH devices on 127.0.0.1.")
    parser.add_argument("--devices", type=int, default=10)
    parser.add_argument("--rtt", type=float, default=0.05)
    parser.add_argument("--password", default="bench-password")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    fabric = FakeFabric(_bench_devices(args.devices, args.rtt, args.password))
    fabric.start()
    fabric.known_hosts(args.out / "known_hosts")
    fabric.inventory(args.out / "inventory.yaml")
    print(f"READY {len(fabric.devices)}", flush=True)
    try:
        sys.stdin.read()
    except KeyboardInterrupt:
        pass
    finally:
        fabric.stop()


if __name__ == "__main__":
    main()
