"""What the conformance runner runs vectors against: in-process layers or an outside program.

Theory of operation
-------------------
A target answers one request at a time: ``(machine, handler, input JSON)`` in, a
:class:`Response` out. A response is the handler's output, an error the target reports on
purpose (``kind`` and ``message``), or a *broken* answer: the target crashed, hung, or printed
something that is not the protocol. Only the runner decides pass or fail; targets just answer.

* In-process targets (``impl``, ``impl-kafka``, ``spec``) call Python functions found in
  :data:`HANDLERS`, a table ``(machine, handler) -> {target name: function}``. A later machine
  adds a row. ``groupspec adapter`` serves the same table over the JSON-lines protocol, so the
  in-process and out-of-process paths cannot drift apart.
* ``cmd:<program>`` starts the program (split like a shell would, but run without one) and
  speaks JSON lines on its stdin/stdout (docs/conformance.md). Every way the program can
  misbehave becomes a broken response with a reason and the stderr it wrote meanwhile; the
  program is restarted after it dies or hangs, and given up on after
  :data:`MAX_CONSECUTIVE_BROKEN` broken answers in a row.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from groupspec.types import InputError, PartitionAssignorError

IN_PROCESS = ("impl", "impl-kafka", "spec")
#: The expectation each in-process target is held to by default.
DEFAULT_FLAVOUR = {"impl": "groupspec", "impl-kafka": "kafka", "spec": "groupspec"}
FLAVOURS = ("groupspec", "kafka")
MAX_CONSECUTIVE_BROKEN = 3
_STDERR_KEEP = 40  # lines of stderr kept per answer


@dataclass(frozen=True)
class Response:
    """One answer: exactly one of ``output``, ``error`` (kind, message) or ``broken`` is set."""

    output: Any = None
    error: tuple[str, str] | None = None
    broken: str | None = None
    stderr: str = ""


class Target(Protocol):
    name: str

    def call(self, request_id: str, machine: str, handler: str, doc: Any) -> Response: ...

    def close(self) -> None: ...


# ---------------------------------------------------------------------------------------------
# The dispatch table, shared with `groupspec adapter`
# ---------------------------------------------------------------------------------------------

Handler = Callable[[Any], dict[str, Any]]


def _assignor(target: str) -> Handler:
    def run(doc: Any) -> dict[str, Any]:
        from groupspec.group_json import assignment_to_json, group_from_json

        group = group_from_json(doc, strict_topics=False)
        if target == "spec":
            from groupspec.spec.simple_assignor import assign as spec_assign

            return assignment_to_json(spec_assign(group))
        from groupspec.impl.assignors import assign

        return assignment_to_json(assign(group, compat="kafka" if target == "impl-kafka"
                                         else "groupspec"))
    return run


def _decode_record(doc: Any) -> dict[str, Any]:
    from groupspec.conformance.cases.records import decode_answer

    return decode_answer(doc)


def drive_classic(target: str, run: Any) -> Any:
    """Feed a classic_group run (``classic_json.RunInput``) to the spec or the implementation,
    event by event with its index, and collect every Output and the final view (a RunOutput).

    The implementation has no Kafka-exact mode for the classic group, so ``impl-kafka`` runs
    the implementation as it is.
    """
    from groupspec.conformance.classic_json import RunOutput

    outputs = []
    if target == "spec":
        from groupspec.spec import classic_group as spec

        state = spec.initial_state(run.config, run.start_ms)
        for index, event in enumerate(run.events):
            state, output = spec.step(state, event, index)
            outputs.append(output)
        return RunOutput(tuple(outputs), spec.view(state))
    from groupspec.impl.classic import ClassicCoordinator

    coordinator = ClassicCoordinator(run.config, start_ms=run.start_ms)
    for index, event in enumerate(run.events):
        outputs.append(coordinator.handle(event, index))
    return RunOutput(tuple(outputs), coordinator.view())


def _classic_run(target: str) -> Handler:
    def run(doc: Any) -> dict[str, Any]:
        from groupspec.conformance.classic_json import run_input_from_json, run_output_to_json

        return run_output_to_json(drive_classic(target, run_input_from_json(doc)))
    return run


def drive_share(target: str, run: Any) -> Any:
    """Feed a share_partition run (``share_json.RunInput``) to the spec or the implementation,
    event by event with its index; the Outputs and the final view (a ``share_json.RunOutput``).

    The implementation follows Kafka's code, so ``impl-kafka`` runs it as it is.
    """
    from groupspec.conformance.share_json import RunOutput

    outputs = []
    if target == "spec":
        from groupspec.spec import share_partition as spec

        state = spec.initial_state(run.config, run.persisted, run.start_ms, run.latest_offset)
        for index, event in enumerate(run.events):
            state, output = spec.step(state, event, index)
            outputs.append(output)
        return RunOutput(tuple(outputs), spec.view(state))
    from groupspec.impl.share import SharePartitionMachine

    machine = SharePartitionMachine(run.config, run.persisted, start_ms=run.start_ms,
                                    latest_offset=run.latest_offset)
    for index, event in enumerate(run.events):
        outputs.append(machine.handle(event, index))
    return RunOutput(tuple(outputs), machine.view())


def _share_run(target: str) -> Handler:
    def run(doc: Any) -> dict[str, Any]:
        from groupspec.conformance.share_json import run_input_from_json, run_output_to_json

        return run_output_to_json(drive_share(target, run_input_from_json(doc)))
    return run


def drive_share_group(target: str, run: Any) -> Any:
    """Feed a share_group run (``share_group_json.RunInput``) to the spec or the implementation.

    The implementation follows Kafka's code (with groupspec's orders), so ``impl-kafka`` runs it.
    """
    from groupspec.conformance.share_group_json import RunOutput

    outputs = []
    if target == "spec":
        from groupspec.spec import share_group as spec

        state = spec.initial_state(run.config, run.topics, run.start_ms)
        for index, event in enumerate(run.events):
            state, output = spec.step(state, event, index)
            outputs.append(output)
        return RunOutput(tuple(outputs), spec.view(state))
    from groupspec.impl.share_group import ShareGroupCoordinator

    coordinator = ShareGroupCoordinator(run.config, run.topics, start_ms=run.start_ms)
    for index, event in enumerate(run.events):
        outputs.append(coordinator.handle(event, index))
    return RunOutput(tuple(outputs), coordinator.view())


def _share_group_run(target: str) -> Handler:
    def run(doc: Any) -> dict[str, Any]:
        from groupspec.conformance.share_group_json import run_input_from_json, run_output_to_json

        return run_output_to_json(drive_share_group(target, run_input_from_json(doc)))
    return run


def drive_share_consumer(target: str, run: Any) -> Any:
    """Feed a share_consumer run to the spec or the implementation (``impl-kafka``: the
    implementation, which follows Kafka's client)."""
    from groupspec.conformance.share_consumer_json import RunOutput

    outputs = []
    if target == "spec":
        from groupspec.spec import share_consumer as spec

        state = spec.initial_state(run.config, run.start_ms)
        for event in run.events:
            state, output = spec.step(state, event)
            outputs.append(output)
        return RunOutput(tuple(outputs), spec.view(state))
    from groupspec.impl.share_consumer import ShareConsumerMembership

    client = ShareConsumerMembership(run.config, now_ms=run.start_ms)
    for event in run.events:
        outputs.append(client.handle(event))
    return RunOutput(tuple(outputs), client.view())


def _share_consumer_run(target: str) -> Handler:
    def run(doc: Any) -> dict[str, Any]:
        from groupspec.conformance.share_consumer_json import run_input_from_json, run_output_to_json

        return run_output_to_json(drive_share_consumer(target, run_input_from_json(doc)))
    return run


HANDLERS: dict[tuple[str, str], Mapping[str, Handler]] = {
    ("simple_assignor", "assign"): {name: _assignor(name) for name in IN_PROCESS},
    # Bytes are Kafka's in both flavours; the spec has no codec (it speaks typed records).
    ("records", "decode_record"): {"impl": _decode_record, "impl-kafka": _decode_record},
    ("classic_group", "run"): {name: _classic_run(name) for name in IN_PROCESS},
    ("share_partition", "run"): {name: _share_run(name) for name in IN_PROCESS},
    ("share_group", "run"): {name: _share_group_run(name) for name in IN_PROCESS},
    ("share_consumer", "run"): {name: _share_consumer_run(name) for name in IN_PROCESS},
}


def has_handler(target: str, machine: str, handler: str) -> bool:
    """Whether an in-process target implements a machine's handler (outside programs: assume so)."""
    row = HANDLERS.get((machine, handler))
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
    """Run one request in process; raises LookupError for an unknown (machine, handler)."""
    row = HANDLERS.get((machine, handler))
    if row is None:
        known = ", ".join(f"{m}/{h}" for m, h in HANDLERS)
        raise LookupError(f"no handler {machine}/{handler} (known: {known})")
    if target not in row:
        raise LookupError(f"target {target!r} has no handler {machine}/{handler}")
    return row[target](doc)


class InProcessTarget:
    """``impl``, ``impl-kafka`` or ``spec``, called directly."""

    def __init__(self, name: str) -> None:
        if name not in IN_PROCESS:
            raise InputError("--target", f"unknown target {name!r}")
        self.name = name

    def call(self, request_id: str, machine: str, handler: str, doc: Any) -> Response:
        try:
            return Response(output=dispatch(self.name, machine, handler, doc))
        except LookupError as exc:
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
        self._proc: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._stderr: list[str] = []
        self._stderr_lock = threading.Lock()
        self._broken_in_a_row = 0

    # -- process handling --------------------------------------------------------------------

    def _start(self) -> str | None:
        """Start the program; returns why it could not start, or None."""
        self._lines = queue.Queue()
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, env=os.environ.copy(),
                                    start_new_session=True)
        except OSError as exc:
            return f"cannot start {self.argv[0]!r}: {exc.strerror or exc}"
        self._proc = proc
        lines = self._lines

        def pump_out(stream: Any = proc.stdout) -> None:
            for line in iter(stream.readline, b""):
                lines.put(line)
            lines.put(None)  # end of output: the program exited or closed stdout

        def pump_err(stream: Any = proc.stderr) -> None:
            for line in iter(stream.readline, b""):
                with self._stderr_lock:
                    self._stderr.append(line.decode("utf-8", "replace").rstrip("\n"))
                    del self._stderr[:-_STDERR_KEEP]

        threading.Thread(target=pump_out, daemon=True).start()
        threading.Thread(target=pump_err, daemon=True).start()
        return None

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        with contextlib.suppress(OSError):
            if proc.stdin:
                proc.stdin.close()
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            _kill(proc)
            proc.wait()

    def _exit_reason(self) -> str:
        proc = self._proc
        code = None
        if proc is not None:
            try:
                code = proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                return "closed its stdout before answering"
        return f"exited with code {code} before answering"

    def _take_stderr(self, settle: bool = True) -> str:
        if settle:
            time.sleep(0.05)  # let the stderr pump catch a dying program's last words
        with self._stderr_lock:
            text = "\n".join(self._stderr)
            self._stderr.clear()
        return text

    # -- one request -------------------------------------------------------------------------

    def call(self, request_id: str, machine: str, handler: str, doc: Any) -> Response:
        if self._broken_in_a_row >= MAX_CONSECUTIVE_BROKEN:
            return Response(broken=f"not run: the target was broken on the previous "
                            f"{MAX_CONSECUTIVE_BROKEN} vectors in a row")
        response = self._call(request_id, machine, handler, doc)
        if response.broken is not None:
            self._broken_in_a_row += 1
            self._stop()
        else:
            self._broken_in_a_row = 0
        return response

    def _call(self, request_id: str, machine: str, handler: str, doc: Any) -> Response:
        if self._proc is None or self._proc.poll() is not None:
            self._stop()
            why = self._start()
            if why is not None:
                return Response(broken=why)
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        while not self._lines.empty():  # anything printed since the last answer is stale
            if self._lines.get_nowait() is None:
                return Response(broken=self._exit_reason(), stderr=self._take_stderr())
        request = {"id": request_id, "machine": machine, "handler": handler, "input": doc}
        try:
            proc.stdin.write(json.dumps(request, ensure_ascii=False).encode("utf-8") + b"\n")
            proc.stdin.flush()
        except OSError:
            return Response(broken=self._exit_reason(), stderr=self._take_stderr())
        try:
            line = self._lines.get(timeout=self.timeout)
        except queue.Empty:
            _kill(proc)
            return Response(broken=f"no answer within {self.timeout:g} s (--timeout)",
                            stderr=self._take_stderr())
        if line is None:
            return Response(broken=self._exit_reason(), stderr=self._take_stderr())
        return _parse_answer(line, request_id, self._take_stderr(settle=False))

    def close(self) -> None:
        self._stop()


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
        answer = json.loads(text)
    except json.JSONDecodeError:
        return Response(broken=f"answered a line that is not JSON: {shown!r}", stderr=stderr)
    if not isinstance(answer, dict):
        return Response(broken=f"answered JSON that is not an object: {shown!r}", stderr=stderr)
    if answer.get("id") != request_id:
        return Response(broken=f"answered id {answer.get('id')!r}, expected {request_id!r}",
                        stderr=stderr)
    if "error" in answer:
        err = answer["error"]
        if (not isinstance(err, dict) or not isinstance(err.get("kind"), str)
                or not isinstance(err.get("message", ""), str)):
            return Response(broken=f"'error' must be {{\"kind\": str, \"message\": str}}: "
                            f"{shown!r}", stderr=stderr)
        return Response(error=(err["kind"], err.get("message", "")), stderr=stderr)
    if "output" not in answer:
        return Response(broken=f"answer has neither 'output' nor 'error': {shown!r}",
                        stderr=stderr)
    return Response(output=answer["output"], stderr=stderr)


def make_target(spec: str, timeout: float) -> Target:
    """``impl``, ``impl-kafka``, ``spec`` or ``cmd:<program>``."""
    if spec.startswith("cmd:"):
        return CommandTarget(spec[4:], timeout)
    if spec in IN_PROCESS:
        return InProcessTarget(spec)
    raise InputError("--target", f"unknown target {spec!r}; expected one of "
                     f"{', '.join(IN_PROCESS)} or cmd:<program>")
