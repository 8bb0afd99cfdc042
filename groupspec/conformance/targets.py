"""What the conformance runner runs vectors against: in-process layers or an outside program.

Theory of operation
-------------------
A target answers one request at a time: ``(machine, handler, input JSON)`` in, a
:class:`Response` out. A response is the handler's output, an error the target reports on
purpose (``kind`` and ``message``), an *unsupported* answer (the target does not implement that
machine or handler, or cannot express this vector's input, with a reason), or a *broken*
answer: the target crashed, hung, or printed something that is not the protocol. Only the
runner decides pass or fail; targets just answer.

* In-process targets (``impl``, ``impl-kafka``, ``spec``) call Python functions found in
  :func:`handlers`, a table ``(machine, handler) -> {target name: function}`` derived from the
  machine registry (:mod:`groupspec.machines`: each machine's driver and the targets it
  serves); a target a machine leaves out answers unsupported with the entry's reason.
  ``groupspec adapter`` serves the same table over the JSON-lines protocol, so the in-process
  and out-of-process paths cannot drift apart.
* ``cmd:<program>`` starts the program (split like a shell would, but run without one) and
  speaks JSON lines on its stdin/stdout (docs/conformance.md). The first line the first process
  gets is the handshake; a program that does not take part is taken to implement everything,
  so adapters written before the handshake keep working. Every way the program can misbehave
  becomes a broken response with a reason and the stderr it wrote meanwhile; the program is
  restarted after it dies or hangs, and given up on after :data:`MAX_CONSECUTIVE_BROKEN` broken
  answers in a row.
* stdout and stderr are two pipes, read by one thread with ``selectors`` rather than by pump
  threads: when the answer line has been read, everything the program wrote to stderr before
  writing it is already in the stderr pipe, so reading that pipe dry at that moment gives each
  vector its own stderr (a pump thread may not have caught up yet, which is how stderr used to
  land under the next vector).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import selectors
import shlex
import signal
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

from groupspec import bounded_json, machines
from groupspec.types import InputError, PartitionAssignorError

IN_PROCESS = machines.IN_PROCESS
#: The expectation each in-process target is held to by default.
DEFAULT_FLAVOUR = {"impl": "groupspec", "impl-kafka": "kafka", "spec": "groupspec", "kafka": "kafka"}
FLAVOURS = ("groupspec", "kafka")
MAX_CONSECUTIVE_BROKEN = 3
_STDERR_KEEP = 40  # lines of stderr kept per answer
_STDERR_BYTES = 1 << 20  # at most this much stderr is buffered between two answers
#: The handshake (docs/conformance.md): the first line a program gets, shaped like any request so
#: that a program written before the handshake answers it as an unknown machine.
PROTOCOL_VERSION = 1
HANDSHAKE_ID = "groupspec:handshake"
HANDSHAKE_MACHINE, HANDSHAKE_HANDLER = "groupspec", "handshake"


@dataclass(frozen=True)
class Response:
    """One answer: exactly one of ``output``, ``error`` (kind, message), ``unsupported`` (the
    target's reason) or ``broken`` is set."""

    output: Any = None
    error: tuple[str, str] | None = None
    broken: str | None = None
    stderr: str = ""
    unsupported: str | None = None
    #: Parts of ``output`` the target cannot observe (paths such as ``view`` or
    #: ``outputs[].records``, :func:`groupspec.conformance.runner.masked`): a live broker over the
    #: wire shows its answers, not the records it writes or its internal state, so the judge
    #: compares everything else.
    unobserved: tuple[str, ...] = ()
    #: Lists in ``output`` whose order the target cannot reproduce (same paths; an answer's
    #: members ordered by a broker's hash of ids the vector cannot choose).
    unordered: tuple[str, ...] = ()


class Target(Protocol):
    name: str
    #: What the run should tell its reader about the target as a whole (e.g. how the handshake
    #: went); shown once, not per vector.
    notes: list[str]

    def call(self, request_id: str, machine: str, handler: str, doc: Any) -> Response: ...

    def close(self) -> None: ...


# ---------------------------------------------------------------------------------------------
# The dispatch table, shared with `groupspec adapter`: each machine's handlers, from its module
# ---------------------------------------------------------------------------------------------

Handler = Callable[[Any], dict[str, Any]]


@functools.cache
def handlers() -> dict[tuple[str, str], Mapping[str, Handler]]:
    """``(machine, handler) -> {target: handler}`` for every registered machine, built once from
    the registry (:mod:`groupspec.machines`): each entry's driver, for the targets it serves."""
    table: dict[tuple[str, str], Mapping[str, Handler]] = {}
    for m in machines.MACHINES:
        for handler in m.handlers:
            factory = machines.load(m.role("handler", handler))
            table[(m.name, handler)] = {target: factory(target) for target in m.targets}
    return table


class UnknownHandler(LookupError):
    """No machine registers this (machine, handler): the answer's kind is ``unknown_handler``.

    Its own class, so that a LookupError raised inside a handler (an IndexError, a KeyError:
    a bug) is reported as the internal error it is, not as an unknown handler."""


class Unsupported(LookupError):
    """The target knows the (machine, handler) but does not implement it; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _not_implemented(target: str, machine: str, handler: str) -> str:
    why = machines.BY_NAME[machine].unsupported.get(target, "not implemented") \
        if machine in machines.BY_NAME else "not implemented"
    return f"target {target!r} does not implement {machine}/{handler}: {why}"


def handshake_answer(target: str) -> dict[str, Any]:
    """The handshake ``output`` of an in-process target served by ``groupspec adapter``: what it
    implements, and why it leaves the rest out."""
    table: dict[str, list[str]] = {}
    reasons: dict[str, str] = {}
    for (machine, handler), row in handlers().items():
        if target in row:
            table.setdefault(machine, []).append(handler)
        else:
            reasons[f"{machine}/{handler}"] = _not_implemented(target, machine, handler)
    return {"protocol": PROTOCOL_VERSION, "implements": table, "reasons": reasons}


def has_handler(target: str, machine: str, handler: str) -> bool:
    """Whether an in-process target implements a machine's handler (outside programs: assume so)."""
    row = handlers().get((machine, handler))
    return target not in IN_PROCESS or (row is not None and target in row)


def error_kind(exc: BaseException) -> str:
    """The ``kind`` an error answer carries: Kafka's exception name where there is one."""
    if isinstance(exc, PartitionAssignorError):
        return exc.kafka_exception
    from groupspec.impl.codec.errors import CodecError

    if isinstance(exc, CodecError):
        return type(exc).__name__.removesuffix("Error")
    if isinstance(exc, InputError):
        return "invalid_input"
    if isinstance(exc, ImportError):
        return "unavailable"
    return "internal"


def dispatch(target: str, machine: str, handler: str, doc: Any) -> dict[str, Any]:
    """Run one request in process; raises UnknownHandler for an unknown (machine, handler) and
    Unsupported for one the target does not implement."""
    row = handlers().get((machine, handler))
    if row is None:
        known = ", ".join(f"{m}/{h}" for m, h in handlers())
        raise UnknownHandler(f"no handler {machine}/{handler} (known: {known})")
    if target not in row:
        raise Unsupported(_not_implemented(target, machine, handler))
    return row[target](doc)


class InProcessTarget:
    """``impl``, ``impl-kafka`` or ``spec``, called directly."""

    def __init__(self, name: str) -> None:
        if name not in IN_PROCESS:
            raise InputError("--target", f"unknown target {name!r}")
        self.name = name
        self.notes: list[str] = []

    def call(self, request_id: str, machine: str, handler: str, doc: Any) -> Response:
        try:
            return Response(output=dispatch(self.name, machine, handler, doc))
        except Unsupported as exc:
            return Response(unsupported=exc.reason)
        except UnknownHandler as exc:
            return Response(error=("unknown_handler", str(exc)))
        except ImportError as exc:
            return Response(broken=f"target {self.name} is not available: {exc}")
        except Exception as exc:
            return Response(error=(error_kind(exc), f"{type(exc).__name__}: {exc}"))

    def close(self) -> None:
        pass


# ---------------------------------------------------------------------------------------------
# An outside program over JSON lines
# ---------------------------------------------------------------------------------------------


class _Timeout(Exception):
    """The program did not finish a line (or take its request) before the deadline."""


class _Overlong(Exception):
    """The program wrote a line longer than the runner reads."""


class _Program:
    """One run of the program and its three pipes, all non-blocking and served by the caller's
    thread (the module docstring says why)."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self.proc = proc
        self._in, self._out_fd, self._err_fd = (proc.stdin.fileno(), proc.stdout.fileno(),
                                                proc.stderr.fileno())
        for fd in (self._in, self._out_fd, self._err_fd):
            os.set_blocking(fd, False)
        self._reading = selectors.DefaultSelector()
        self._writing = selectors.DefaultSelector()
        for fd in (self._out_fd, self._err_fd):
            self._reading.register(fd, selectors.EVENT_READ)
            self._writing.register(fd, selectors.EVENT_READ)
        self._writing.register(self._in, selectors.EVENT_WRITE)
        self._open = {self._out_fd, self._err_fd}
        self._out = bytearray()
        self._err = bytearray()

    @property
    def out_ended(self) -> bool:
        return self._out_fd not in self._open

    def _read(self, fd: int) -> None:
        try:
            data = os.read(fd, 1 << 16)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._open.discard(fd)
            self._reading.unregister(fd)
            self._writing.unregister(fd)
        elif fd == self._out_fd:
            self._out += data
        else:
            self._err += data
            del self._err[:-_STDERR_BYTES]

    def _wait(self, timeout: float, writing: bool = False) -> bool:
        """Wait up to ``timeout`` s for output (and, ``writing``, for room in stdin), reading what
        arrived; False when nothing did."""
        selector = self._writing if writing else self._reading
        if not selector.get_map():  # both pipes at their end: nothing will arrive
            time.sleep(min(max(timeout, 0.0), 0.05))
            return False
        events = selector.select(max(timeout, 0.0))
        for key, _ in events:
            if key.fd != self._in:
                self._read(key.fd)
        return bool(events)

    def drain(self) -> None:
        """Read what the pipes already hold, without waiting (bounded, for a program that never
        stops writing)."""
        for _ in range(64):
            if not self._open or not self._wait(0.0):
                return

    def send(self, data: bytes, deadline: float) -> bool:
        """Write one request; False when the program no longer reads its stdin."""
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._in, view):]
                continue
            except BlockingIOError:
                pass
            except OSError:
                return False
            if time.monotonic() >= deadline:
                raise _Timeout
            self._wait(deadline - time.monotonic(), writing=True)
        return True

    def read_line(self, deadline: float) -> bytes | None:
        """The next stdout line (None at end of output), with stderr read up to that moment.

        A line longer than :data:`~groupspec.bounded_json.MAX_LINE_BYTES` raises
        :class:`_Overlong` once that much has arrived without a newline.
        """
        while True:
            end = self._out.find(b"\n")
            if (len(self._out) if end < 0 else end) > bounded_json.MAX_LINE_BYTES:
                raise _Overlong
            if end >= 0 or (self.out_ended and self._out):
                cut = end + 1 if end >= 0 else len(self._out)
                line = bytes(self._out[:cut])
                del self._out[:cut]
                self.drain()
                return line
            if self.out_ended:
                self.drain()
                return None
            if time.monotonic() >= deadline:
                raise _Timeout
            self._wait(deadline - time.monotonic())

    def discard_output(self) -> None:
        """Forget stdout written since the last answer: no request was waiting for it."""
        self.drain()
        self._out.clear()

    def take_stderr(self) -> str:
        text = self._err.decode("utf-8", "replace")
        self._err.clear()
        return "\n".join(text.splitlines()[-_STDERR_KEEP:])

    def finish(self, grace: float) -> None:
        """Close stdin, give the program ``grace`` seconds to exit (killed after that), and read
        its pipes to their end so that its last stderr is kept."""
        with contextlib.suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        deadline = time.monotonic() + grace
        while self._open and time.monotonic() < deadline:
            self._wait(deadline - time.monotonic())
        try:
            self.proc.wait(timeout=max(deadline - time.monotonic(), 0.01))
        except subprocess.TimeoutExpired:
            _kill(self.proc)
            self.proc.wait()
        settle = time.monotonic() + 0.5  # a killed program's pipes close at once
        while self._open and time.monotonic() < settle:
            self._wait(settle - time.monotonic())
        self._reading.close()
        self._writing.close()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()

    def kill(self) -> None:
        _kill(self.proc)


class CommandTarget:
    """A program answering JSON lines; restarted when it dies or hangs."""

    def __init__(self, program: str, timeout: float) -> None:
        try:
            self.argv = shlex.split(program)
        except ValueError as exc:
            raise InputError("--target", f"cannot split the command: {exc}") from None
        if not self.argv:
            raise InputError("--target", "cmd: needs a program, e.g. cmd:'./my-adapter --flag'")
        self.name = f"cmd:{program}"
        self.timeout = timeout
        self.notes: list[str] = []
        self._prog: _Program | None = None
        self._broken_in_a_row = 0
        self._handshake_done = False
        #: machine -> handlers the program declared; None: no handshake, so everything.
        self._implements: dict[str, frozenset[str]] | None = None
        #: "machine/handler" -> why the program leaves it out, as its handshake says.
        self._reasons: dict[str, str] = {}
        self._handshake_broken: str | None = None

    # -- process handling --------------------------------------------------------------------

    def _start(self) -> str | None:
        """Start the program; returns why it could not start, or None."""
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, env=os.environ.copy(),
                                    start_new_session=True)
        except OSError as exc:
            return f"cannot start {self.argv[0]!r}: {exc.strerror or exc}"
        self._prog = _Program(proc)
        return None

    def _running(self) -> str | None:
        """Make sure the program runs (the first one it starts gets the handshake); why not."""
        prog = self._prog
        if prog is not None:
            prog.drain()
            if prog.proc.poll() is None and not prog.out_ended:
                return None
        self._stop()
        why = self._start()
        if why is None and not self._handshake_done:
            self._handshake_done = True
            self._handshake()
            if self._prog is None:  # it did not survive the handshake: a fresh one for the work
                why = self._start()
        return why

    def _stop(self, grace: float = 2.0) -> str:
        """Stop the program; returns the stderr it wrote since the last answer."""
        prog, self._prog = self._prog, None
        if prog is None:
            return ""
        prog.finish(grace)
        return prog.take_stderr()

    def _exit_reason(self, when: str = "before answering") -> str:
        prog = self._prog
        code = None
        if prog is not None:
            try:
                code = prog.proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                return f"closed its stdout {when}"
        return f"exited with code {code} {when}"

    # -- the handshake -----------------------------------------------------------------------

    def _without_handshake(self, how: str) -> None:
        self.notes.append(f"no handshake ({how}): the target is taken to implement every machine")

    def _handshake(self) -> None:
        """Ask the fresh program what it implements (docs/conformance.md, "The handshake")."""
        prog = self._prog
        assert prog is not None
        request = {"id": HANDSHAKE_ID, "machine": HANDSHAKE_MACHINE, "handler": HANDSHAKE_HANDLER,
                   "input": {"protocol": PROTOCOL_VERSION}}
        deadline = time.monotonic() + self.timeout
        try:
            sent = prog.send(json.dumps(request).encode("utf-8") + b"\n", deadline)
            line = prog.read_line(deadline) if sent else None
        except (_Timeout, _Overlong) as exc:
            prog.kill()
            self._stop()
            self._without_handshake(f"no answer to it within {self.timeout:g} s" if isinstance(exc, _Timeout)
                                    else "answered it with an endless line")
            return
        prog.take_stderr()  # start-up chatter and handshake trouble belong to no vector
        if line is None:
            self._without_handshake(self._exit_reason("on it"))
            self._stop()
            return
        try:
            answer = bounded_json.parse(line, "handshake answer")
        except InputError:
            answer = None
        if not isinstance(answer, dict) or answer.get("id") != HANDSHAKE_ID:
            self._without_handshake("answered it with something other than a protocol answer")
            self._stop()  # the program may be out of step with the runner: start afresh
            return
        output = answer.get("output")
        if not isinstance(output, dict) or "implements" not in output:
            error = answer.get("error")
            self._without_handshake(
                "answered it unsupported" if "unsupported" in answer
                else f"answered it with error {error.get('kind')}" if isinstance(error, dict)
                else "answered it without 'implements'")
            return
        try:
            self._implements, self._reasons = _read_implements(output)
        except ValueError as exc:
            self._handshake_broken = f"malformed handshake answer: {exc}"

    # -- one request -------------------------------------------------------------------------

    def call(self, request_id: str, machine: str, handler: str, doc: Any) -> Response:
        if self._broken_in_a_row >= MAX_CONSECUTIVE_BROKEN:
            return Response(broken=f"not run: the target was broken on the previous "
                            f"{MAX_CONSECUTIVE_BROKEN} vectors in a row")
        if not self._handshake_done:
            self._running()
        if self._handshake_broken is not None:
            return Response(broken=self._handshake_broken)
        if self._implements is not None and handler not in self._implements.get(machine, ()):
            why = self._reasons.get(f"{machine}/{handler}")
            if why is not None:
                return Response(unsupported=f"{why} (handshake)")
            declared = ", ".join(f"{m}/{h}" for m, hs in sorted(self._implements.items())
                                 for h in sorted(hs)) or "nothing"
            return Response(unsupported=f"not in the target's handshake (it implements {declared})")
        response = self._call(request_id, machine, handler, doc)
        if response.broken is not None:
            self._broken_in_a_row += 1
            rest = self._stop()  # what it wrote on its way out belongs to this vector
            if rest:
                both = "\n".join(s for s in (response.stderr, rest) if s)
                response = replace(response, stderr="\n".join(both.splitlines()[-_STDERR_KEEP:]))
        elif response.unsupported is None:
            self._broken_in_a_row = 0
        return response

    def _call(self, request_id: str, machine: str, handler: str, doc: Any) -> Response:
        why = self._running()
        if why is not None:
            return Response(broken=why)
        prog = self._prog
        assert prog is not None
        prog.discard_output()
        request = {"id": request_id, "machine": machine, "handler": handler, "input": doc}
        deadline = time.monotonic() + self.timeout
        try:
            if not prog.send(json.dumps(request, ensure_ascii=False).encode("utf-8") + b"\n",
                             deadline):
                return Response(broken=self._exit_reason(), stderr=prog.take_stderr())
            line = prog.read_line(deadline)
        except _Timeout:
            prog.kill()
            return Response(broken=f"no answer within {self.timeout:g} s (--timeout)",
                            stderr=prog.take_stderr())
        except _Overlong:
            prog.kill()
            return Response(broken=f"answered a line longer than {bounded_json.MAX_LINE_BYTES:,} bytes "
                            "(read no further)", stderr=prog.take_stderr())
        if line is None:
            return Response(broken=self._exit_reason(), stderr=prog.take_stderr())
        return _parse_answer(line, request_id, prog.take_stderr())

    def close(self) -> None:
        self._stop()


def _read_implements(output: Mapping[str, Any]) -> tuple[dict[str, frozenset[str]], dict[str, str]]:
    """The handshake answer's ``implements`` and ``reasons``; ValueError says what is wrong."""
    protocol = output.get("protocol", PROTOCOL_VERSION)
    if protocol != PROTOCOL_VERSION:
        raise ValueError(f"protocol {protocol!r}, but this runner speaks {PROTOCOL_VERSION}")
    table = output["implements"]
    if not (isinstance(table, dict) and all(
            isinstance(handlers, list) and all(isinstance(h, str) for h in handlers)
            for handlers in table.values())):
        raise ValueError('implements: expected {"<machine>": ["<handler>", ...]}, got '
                         f"{json.dumps(table)[:120]}")
    reasons = output.get("reasons", {})
    if not (isinstance(reasons, dict) and all(isinstance(r, str) for r in reasons.values())):
        raise ValueError('reasons: expected {"<machine>/<handler>": "<why>"}, got '
                         f"{json.dumps(reasons)[:120]}")
    return {machine: frozenset(handlers) for machine, handlers in table.items()}, reasons


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill the program and anything it started (it runs in its own session)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        with contextlib.suppress(OSError):
            proc.kill()


def _parse_answer(line: bytes, request_id: str, stderr: str) -> Response:
    text = line.decode("utf-8", "replace").strip()
    shown = text if len(text) <= 200 else text[:200] + "..."
    try:
        answer = bounded_json.parse(line, "answer")
    except InputError as exc:
        if exc.problem.startswith("malformed JSON"):
            return Response(broken=f"answered a line that is not JSON: {shown!r}", stderr=stderr)
        return Response(broken=f"answered a line the runner does not read ({exc}): {shown!r}",
                        stderr=stderr)
    if not isinstance(answer, dict):
        return Response(broken=f"answered JSON that is not an object: {shown!r}", stderr=stderr)
    if answer.get("id") != request_id:
        return Response(broken=f"answered id {answer.get('id')!r}, expected {request_id!r}",
                        stderr=stderr)
    if "unsupported" in answer:
        why = answer["unsupported"]
        if "output" in answer or "error" in answer:
            return Response(broken=f"an answer holds one of 'output', 'error', 'unsupported': "
                            f"{shown!r}", stderr=stderr)
        if not isinstance(why, dict) or not isinstance(why.get("reason"), str) or not why["reason"]:
            return Response(broken=f"'unsupported' must be {{\"reason\": str}}: {shown!r}",
                            stderr=stderr)
        return Response(unsupported=why["reason"], stderr=stderr)
    if "error" in answer:
        err = answer["error"]
        if (not isinstance(err, dict) or not isinstance(err.get("kind"), str)
                or not isinstance(err.get("message", ""), str)):
            return Response(broken=f"'error' must be {{\"kind\": str, \"message\": str}}: "
                            f"{shown!r}", stderr=stderr)
        return Response(error=(err["kind"], err.get("message", "")), stderr=stderr)
    if "output" not in answer:
        return Response(broken=f"answer has none of 'output', 'error', 'unsupported': {shown!r}",
                        stderr=stderr)
    return Response(output=answer["output"], stderr=stderr)


def make_target(spec: str, timeout: float, kafka_version: str | None = None) -> Target:
    """``impl``, ``impl-kafka``, ``spec``, ``kafka`` (Kafka's own classes, through the Java
    adapter of groupspec.conformance.kafka_target, built against ``kafka_version``, default
    4.2.1), ``cmd:<program>`` or ``kafka://HOST:PORT`` (a live broker over the wire,
    groupspec.conformance.wire_target). A ``kafka_version`` with any other target is refused."""
    if kafka_version is not None and spec != "kafka":
        raise InputError("--kafka-version", f"only for --target kafka, not {spec!r}")
    if spec.startswith("kafka://"):
        from groupspec.conformance import wire_target

        return wire_target.WireTarget.from_address(spec, timeout)
    if spec.startswith("cmd:"):
        return CommandTarget(spec[4:], timeout)
    if spec in IN_PROCESS:
        return InProcessTarget(spec)
    if spec == "kafka":
        from groupspec.conformance import kafka_target

        version = kafka_target.check_version(kafka_version or kafka_target.DEFAULT_VERSION)
        target = CommandTarget(kafka_target.command(kafka_target.build(version=version)), timeout)
        target.name = "kafka" if version == kafka_target.DEFAULT_VERSION else f"kafka-{version}"
        return target
    raise InputError("--target", f"unknown target {spec!r}; expected one of "
                     f"{', '.join(IN_PROCESS)}, kafka, kafka://HOST:PORT or cmd:<program>")
