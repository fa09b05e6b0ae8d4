"""Running a collection: many devices at once over SSH (netmiko), one snapshot folder.

Each device is one job in a thread pool: connect (host key checked), run its commands, save
each output the moment it is complete, disconnect. A failure is recorded for its device and
never stops the others. Connection failures, timeouts and dropped connections are retried with
exponential backoff and jitter; wrong credentials and host key mismatches are not (retrying
those only locks accounts or hides an attack).

netmiko is imported here and only here, when a collection starts.
"""

from __future__ import annotations

import logging
import os
import random
import re
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from fablint import __version__
from fablint.collect.commands import (
    RDMA_INTERFACES_COMMAND,
    Command,
    commands_for,
    host_qos_commands,
    parse_interface_list,
)
from fablint.collect.credentials import Credentials, Secrets, default_username
from fablint.collect.inventory import Host
from fablint.collect.snapshot import (
    CommandRecord,
    DeviceRecord,
    Manifest,
    now,
    save_output,
    write_manifest,
)

DEFAULT_WORKERS = 100
"""Sessions at once. Collection waits on the network, not the CPU: see bench/run_collect.py."""
MANIFEST_EVERY = 5.0
"""Seconds between manifest updates while a collection runs."""
MAX_BACKOFF = 30.0
INTERRUPT_GRACE = 5.0
"""Seconds an interrupted collection waits for the devices in flight to wind down."""

# Outputs that are a device's complaint rather than the data (short outputs only).
_DEVICE_ERRORS = re.compile(
    r"^% ?(?:Invalid|Incomplete|Ambiguous|Unrecognized|Permission denied)"
    r"|: command not found\s*$|: No such file or directory\s*$|: Permission denied\s*$"
    r"|^Error: |^Usage: |^ibwarn: |^ibpanic: ",
    re.M,
)


class NetmikoMissing(Exception):
    """The optional ``collect`` extra is not installed."""


@dataclass
class CollectOptions:
    workers: int = DEFAULT_WORKERS
    connect_timeout: float = 15.0
    command_timeout: float = 60.0
    retries: int = 2
    backoff: float = 1.0
    """First retry delay in seconds; doubles with each attempt (plus up to 50 % jitter)."""
    known_hosts: Path | None = None
    """known_hosts file to verify host keys against; None: the user's ~/.ssh/known_hosts."""
    insecure_accept_host_keys: bool = False
    host_qos: bool = False
    """Add mlnx_qos and the ECN sysfs tree of every RDMA interface on Linux hosts."""


class CollectError(Exception):
    """Why a device (or a command) failed, in words fit for the report; never a secret."""

    def __init__(self, kind: str, message: str, retryable: bool) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retryable = retryable


class Observer(Protocol):
    """Receives progress from the collection (called from the thread that runs ``collect``)."""

    def started(self, total: int) -> None: ...
    def device_status(self, device: str, status: str) -> None: ...
    def device_done(self, record: DeviceRecord) -> None: ...
    def tick(self) -> None: ...


@dataclass
class _Shared:
    """State the worker threads share with the collecting thread."""

    cancel: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    status: dict[str, str] = field(default_factory=dict)
    sessions: dict[int, Any] = field(default_factory=dict)
    """Open netmiko sessions, to cut them when the collection is interrupted."""

    def opened(self, conn: Any) -> None:
        with self.lock:
            self.sessions[id(conn)] = conn

    def closed(self, conn: Any) -> None:
        with self.lock:
            self.sessions.pop(id(conn), None)

    def cut_all(self) -> None:
        """Close every open session: reads in progress fail at once instead of waiting for
        their timeout."""
        with self.lock:
            sessions = list(self.sessions.values())
        for conn in sessions:
            with suppress(Exception):
                conn.remote_conn_pre.close()

    def set_status(self, device: str, text: str) -> None:
        with self.lock:
            self.status[device] = text

    def take_status(self) -> dict[str, str]:
        with self.lock:
            current, self.status = self.status, {}
        return current


def netmiko_available() -> bool:
    try:
        import netmiko  # noqa: F401
    except ImportError:
        return False
    return True


@contextmanager
def _quiet_ssh_logs() -> Iterator[None]:
    """paramiko and netmiko log connection trouble (with tracebacks) to the root logger; the
    report already says what went wrong, once, per device."""
    loggers = [logging.getLogger(name) for name in ("paramiko", "netmiko")]
    saved = [(lg.propagate, lg.level) for lg in loggers]
    handler = logging.NullHandler()
    for lg in loggers:
        lg.addHandler(handler)
        lg.propagate = False
    try:
        yield
    finally:
        for lg, (propagate, level) in zip(loggers, saved, strict=True):
            lg.removeHandler(handler)
            lg.propagate = propagate
            lg.setLevel(level)


# -- one device ------------------------------------------------------------------------------


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def classify(exc: BaseException, host: Host, username: str, during: str | None) -> CollectError:
    """Turn whatever netmiko / paramiko / the socket raised into a CollectError."""
    from netmiko.exceptions import (
        NetmikoAuthenticationException,
        ReadException,
        ReadTimeout,
    )
    from paramiko.ssh_exception import BadHostKeyException, SSHException

    where = f"{host.address}:{host.port}"
    for err in _chain(exc):
        if isinstance(err, CollectError):
            return err
        if isinstance(err, NetmikoAuthenticationException):
            return CollectError("auth", f"authentication failed for user {username!r} at "
                                f"{where}", retryable=False)
        if isinstance(err, BadHostKeyException):
            return CollectError(
                "host-key", f"host key of {where} does not match known_hosts: possible "
                "man-in-the-middle; if the device was replaced, fix its known_hosts entry",
                retryable=False)
        if isinstance(err, SSHException) and "not found in known_hosts" in str(err):
            return CollectError(
                "host-key-unknown", f"host key of {where} is not in known_hosts; add it "
                f"(ssh-keyscan -p {host.port} {host.address}, then check the fingerprint) or "
                "use --insecure-accept-host-keys", retryable=False)
        refused = getattr(err, "errors", None)  # paramiko NoValidConnectionsError
        if isinstance(refused, dict) and refused and all(
                isinstance(e, ConnectionRefusedError) for e in refused.values()):
            return CollectError("unreachable", f"connection refused by {where}", retryable=True)
        if isinstance(err, ConnectionRefusedError):
            return CollectError("unreachable", f"connection refused by {where}", retryable=True)
        if isinstance(err, (socket.timeout, TimeoutError)):
            return CollectError("unreachable", f"no answer from {where} (connect timeout)",
                                retryable=True)
        if isinstance(err, socket.gaierror):
            return CollectError("unreachable", f"cannot resolve {host.address}",
                                retryable=False)
        if isinstance(err, ReadTimeout):
            what = f"for {during!r}" if during else "at login"
            return CollectError("timeout", f"no prompt (end of output) {what} within the "
                                "command timeout", retryable=True)
        if isinstance(err, (ReadException, EOFError, BrokenPipeError, ConnectionResetError)):
            what = f"during {during!r}" if during else "at login"
            return CollectError("disconnected", f"the device closed the connection {what}",
                                retryable=True)
        if isinstance(err, OSError) and err.strerror:
            return CollectError("unreachable", f"{where}: {err.strerror}", retryable=True)
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if isinstance(exc, SSHException):
        return CollectError("ssh", f"SSH error with {where}: {text}", retryable=True)
    return CollectError("error", f"{type(exc).__name__}: {text}", retryable=False)


def _eof_aware_channel(conn: Any) -> Any:
    """netmiko's SSH channel waits for the whole read timeout when the device hangs up; this
    one reports the hang-up as soon as the channel is closed and drained."""
    from netmiko.channel import SSHChannel
    from netmiko.exceptions import ReadException

    class EofAwareChannel(SSHChannel):
        def read_buffer(self) -> str:
            data = super().read_buffer()
            chan = self.remote_conn
            if not data and chan is not None and (chan.closed or chan.eof_received) \
                    and not chan.recv_ready():
                raise ReadException("Channel closed by the device.")
            return data

    return EofAwareChannel(conn.remote_conn, conn.encoding)


def load_known_hosts(options: CollectOptions) -> Any:
    """The known_hosts file, parsed once for the whole collection.

    netmiko (through paramiko) would re-read and re-parse the file for every connection:
    with a known_hosts of 1,000 switches that is a million key parses, under a global lock.
    """
    import paramiko

    keys = paramiko.HostKeys()
    path = options.known_hosts or Path.home() / ".ssh" / "known_hosts"
    if path.is_file():
        keys.load(str(path))
    return keys


def _client_factory(host: Host, known: Any, insecure: bool) -> Any:
    """Build the paramiko client for one host with only that host's known keys."""
    import paramiko

    def build() -> paramiko.SSHClient:
        client = paramiko.SSHClient()
        name = host.address if host.port == 22 else f"[{host.address}]:{host.port}"
        entries = known.lookup(name) if known is not None else None
        for keytype, key in (entries or {}).items():
            client.get_host_keys().add(name, keytype, key)
        client.set_missing_host_key_policy(
            paramiko.AutoAddPolicy() if insecure else paramiko.RejectPolicy())
        return client

    return build


def connect(host: Host, creds: Credentials, password: str | None, options: CollectOptions,
            username: str, known: Any = None) -> Any:
    """An open netmiko session, host key verified (unless insecure mode says otherwise).

    Unknown host keys are refused unless ``insecure_accept_host_keys``; a key that contradicts
    known_hosts is refused always (paramiko's BadHostKeyException).
    """
    from netmiko import ConnectHandler

    params: dict[str, Any] = {
        "device_type": host.device_type,
        "host": host.address,
        "port": host.port,
        "username": username,
        "password": password,
        "use_keys": bool(host.key_file or creds.key_file),
        "key_file": host.key_file or creds.key_file,
        "passphrase": creds.passphrase,
        "allow_agent": creds.use_agent,
        "ssh_strict": not options.insecure_accept_host_keys,
        "system_host_keys": False,  # known_hosts is loaded once (load_known_hosts)
        "alt_host_keys": False,
        "conn_timeout": options.connect_timeout,
        "auth_timeout": options.connect_timeout,
        "banner_timeout": options.connect_timeout,
        "read_timeout_override": options.command_timeout,
        "fast_cli": True,
        "auto_connect": False,
    }
    conn = ConnectHandler(**params)
    if known is None:
        known = load_known_hosts(options)
    conn._build_ssh_client = _client_factory(host, known, options.insecure_accept_host_keys)
    conn._modify_connection_params()
    conn.establish_connection()
    conn.channel = _eof_aware_channel(conn)
    conn._try_session_preparation()
    return conn


def close(conn: Any, graceful: bool) -> None:
    """Log out and close. netmiko's own goodbye first checks for configuration mode, which
    costs a round trip, and a whole read timeout on a device that hangs: say ``exit`` without
    waiting (on a healthy session only), then close the transport."""
    if graceful:
        with suppress(Exception):
            conn.write_channel("exit" + conn.RETURN)
    conn.cleanup = lambda *args, **kwargs: None
    with suppress(Exception):
        conn.disconnect()


def _prompt_pattern(conn: Any) -> str:
    return re.escape(conn.base_prompt) + r"[#>$]\s*$"


def _device_error(output: str) -> str | None:
    """The device's complaint when a short output is an error message, not data."""
    lines = [ln for ln in output.strip().splitlines() if ln.strip()]
    if not lines or len(lines) > 5:
        return None
    match = _DEVICE_ERRORS.search("\n".join(lines))
    return lines[0].strip()[:200] if match else None


class DeviceJob:
    """Collects one device, with retries; every outcome lands in ``record``."""

    def __init__(self, host: Host, creds: Credentials, options: CollectOptions, root: Path,
                 secrets: Secrets, shared: _Shared, known: Any = None) -> None:
        self.host = host
        self.known = known
        self.creds = creds
        self.options = options
        self.root = root
        self.secrets = secrets
        self.shared = shared
        self.record = DeviceRecord(
            device=host.name, folder=host.folder, address=host.address, port=host.port,
            platform=host.platform, device_type=host.device_type,
        )
        self.pending: list[Command] = commands_for(
            host.platform, host.collect, opensm_conf=host.opensm_conf,
            partitions_conf=host.partitions_conf)
        self.current: Command | None = None
        """The command being run (to name it when the session dies under it)."""
        self.want_qos = "host-qos" in host.collect or (
            options.host_qos and host.platform == "ib-host")
        self.interfaces = list(host.rdma_interfaces) if host.rdma_interfaces is not None \
            else None
        if self.want_qos and self.interfaces is not None:
            self.pending += [c for i in self.interfaces for c in host_qos_commands(i)]
            self.record.rdma_interfaces = list(self.interfaces)

    def status(self, text: str) -> None:
        self.shared.set_status(self.host.name, text)

    def run(self) -> DeviceRecord:
        record = self.record
        record.started = now()
        username = self.host.username or self.creds.username or default_username()
        try:
            password = self._password()
        except CollectError as exc:
            return self._finish(exc)
        last: CollectError | None = None
        for attempt in range(1, self.options.retries + 2):
            if self.shared.cancel.is_set():
                break
            record.attempts = attempt
            try:
                self._session(password, username)
                last = None
                break
            except Exception as exc:  # every failure is this device's, never the run's
                last = classify(exc, self.host, username, getattr(exc, "_fablint_during", None))
                if not last.retryable or attempt > self.options.retries:
                    break
                delay = min(MAX_BACKOFF, self.options.backoff * 2 ** (attempt - 1))
                delay *= 1 + random.random() / 2  # noqa: S311 (jitter, not cryptography)
                self.status(f"retry in {delay:.1f}s ({last.kind})")
                if self.shared.cancel.wait(delay):
                    break
        return self._finish(last)

    def _password(self) -> str | None:
        if self.host.password_env:
            value = os.environ.get(self.host.password_env)
            if not value:
                raise CollectError("credentials", f"environment variable "
                                   f"{self.host.password_env} (password_env) is not set",
                                   retryable=False)
            self.secrets.add(value)
            return value
        return self.creds.password

    def _session(self, password: str | None, username: str) -> None:
        self.current = None
        self.status("connecting")
        conn = connect(self.host, self.creds, password, self.options, username, self.known)
        self.shared.opened(conn)
        healthy = False
        try:
            if self.want_qos and self.interfaces is None:
                self._discover_interfaces(conn)
            while self.pending:
                if self.shared.cancel.is_set():
                    break
                self._run_command(conn, self.pending[0])
                self.pending.pop(0)
            healthy = True
        finally:
            self.status("disconnecting")
            self.shared.closed(conn)
            close(conn, graceful=healthy)

    def _send(self, conn: Any, command: str) -> str:
        try:
            output = conn.send_command(
                command, read_timeout=self.options.command_timeout,
                expect_string=_prompt_pattern(conn), strip_prompt=True, strip_command=True)
        except Exception as exc:
            exc._fablint_during = command  # type: ignore[attr-defined]
            raise
        return str(output)

    def _discover_interfaces(self, conn: Any) -> None:
        self.status("listing RDMA interfaces")
        valid, rejected = parse_interface_list(self._send(conn, RDMA_INTERFACES_COMMAND))
        self.interfaces = valid
        self.record.rdma_interfaces = valid
        if rejected:
            self.record.notes.append(f"ignored {len(rejected)} RDMA interface name(s) that "
                                     "are not plain interface names")
        self.pending += [c for i in valid for c in host_qos_commands(i)]

    def _run_command(self, conn: Any, command: Command) -> None:
        self.status(f"running {command.command}")
        entry = CommandRecord(command=command.command, kind=command.kind,
                              formats=list(command.formats), started=now())
        self.current = command
        output = self._send(conn, command.command)
        self.current = None
        entry.finished = now()
        complaint = _device_error(output)
        if complaint is not None:
            entry.status = "failed"
            entry.error = self.secrets.scrub(f"device answered: {complaint}")
        elif self.shared.cancel.is_set():
            return  # interrupted: the manifest will not list it, so do not save it either
        else:
            text = self.secrets.mask_echoes(output)  # device data: never rewritten
            if not text.endswith("\n"):
                text += "\n"
            entry.file, entry.sha256, entry.bytes = save_output(
                self.root, self.host.folder, command.name, text)
            entry.status = "ok"
        self.record.commands = [c for c in self.record.commands
                                if c.command != command.command]
        self.record.commands.append(entry)

    def _finish(self, error: CollectError | None) -> DeviceRecord:
        record = self.record
        record.finished = now()
        saved = [c for c in record.commands if c.status == "ok"]
        failed = [c for c in record.commands if c.status == "failed"]
        if self.shared.cancel.is_set() and (error is None or self.pending):
            record.status = "cancelled"
            record.error = "collection interrupted"
        elif error is not None:
            record.status = "partial" if saved else "failed"
            record.error = self.secrets.scrub(error.message)
            record.error_kind = error.kind
            if self.current is not None:
                record.commands.append(CommandRecord(
                    command=self.current.command, kind=self.current.kind,
                    formats=list(self.current.formats), finished=record.finished,
                    status="failed", error=record.error))
        elif failed:
            record.status = "partial" if saved else "failed"
            record.error = record.error or f"{len(failed)} command(s) failed"
            record.error_kind = "command"
        else:
            record.status = "ok"
        # Commands never reached are listed too, so that the manifest is complete.
        for command in self.pending:
            if not any(c.command == command.command for c in record.commands):
                record.commands.append(CommandRecord(
                    command=command.command, kind=command.kind, formats=list(command.formats),
                    status="skipped"))
        return record


# -- many devices ----------------------------------------------------------------------------


def collect(
    hosts: list[Host],
    creds: Credentials,
    options: CollectOptions,
    root: Path,
    *,
    inventory: str | None = None,
    observer: Observer | None = None,
    secrets: Secrets | None = None,
) -> Manifest:
    """Collect every host into the snapshot folder ``root``; returns the manifest written.

    Interrupting (Ctrl-C) starts no more devices, cuts the sessions in flight (their unsaved
    output is dropped: nothing half-written), writes the manifest with what was saved, and
    re-raises KeyboardInterrupt.
    """
    if not netmiko_available():
        raise NetmikoMissing("netmiko is not installed")
    secrets = secrets or Secrets([creds.password, creds.passphrase])
    for host in hosts:  # every secret known before the first thread could print one
        if host.password_env:
            secrets.add(os.environ.get(host.password_env))
    shared = _Shared()
    manifest = Manifest(fablint=__version__, started=now(), inventory=inventory)
    known = load_known_hosts(options)
    jobs = [DeviceJob(h, creds, options, root, secrets, shared, known) for h in hosts]
    manifest.devices = [job.record for job in jobs]
    write_manifest(root, manifest)
    if observer is not None:
        observer.started(len(jobs))
    interrupted = False
    futures: dict[Future[DeviceRecord], DeviceJob] = {}
    with _quiet_ssh_logs():
        pool = ThreadPoolExecutor(max_workers=max(1, options.workers),
                                  thread_name_prefix="fablint-collect")
        try:
            futures.update({pool.submit(job.run): job for job in jobs})
            running = set(futures)
            last_manifest = time.monotonic()
            while running:
                done, running = wait(running, timeout=0.1, return_when=FIRST_COMPLETED)
                if observer is not None:
                    for device, text in shared.take_status().items():
                        observer.device_status(device, text)
                for future in done:
                    job = futures[future]
                    record = _result(future, job, secrets)
                    if observer is not None:
                        observer.device_done(record)
                if observer is not None:
                    observer.tick()
                if time.monotonic() - last_manifest > MANIFEST_EVERY:
                    write_manifest(root, manifest)
                    last_manifest = time.monotonic()
        except KeyboardInterrupt:
            interrupted = True
            shared.cancel.set()
            pool.shutdown(wait=False, cancel_futures=True)
            shared.cut_all()
            # the jobs in flight now fail fast; give them a moment to record that
            wait([f for f in futures if not f.cancelled()], timeout=INTERRUPT_GRACE)
            for job in jobs:
                if job.record.status == "pending":
                    job.record.status = "cancelled"
                    job.record.error = "collection interrupted"
        finally:
            if not interrupted:
                pool.shutdown(wait=True)
            manifest.finished = now()
            write_manifest(root, manifest)
    if interrupted:
        raise KeyboardInterrupt
    return manifest


def _result(future: Future[DeviceRecord], job: DeviceJob, secrets: Secrets) -> DeviceRecord:
    try:
        return future.result()
    except Exception as exc:  # a bug in a job must not lose the other devices
        record = job.record
        record.status = "failed" if not any(c.status == "ok" for c in record.commands) \
            else "partial"
        record.error = secrets.scrub(f"internal error: {type(exc).__name__}: {exc}")
        record.error_kind = "internal"
        record.finished = now()
        return record


def exit_code(manifest: Manifest) -> int:
    """0: every device collected in full; 1: some failed or partly; 2: nothing collected."""
    statuses = [d.status for d in manifest.devices]
    if statuses and all(s == "ok" for s in statuses):
        return 0
    if any(s in ("ok", "partial") for s in statuses):
        return 1
    return 2
