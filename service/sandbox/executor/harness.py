"""Python test harness: ``call``, ``assert`` and ``checker`` runs (stdlib only).

Runs in a child forked from the executor, already reduced to the sandbox uid
(so the kernel has made it non-dumpable: no process of that uid may ptrace it
or read its memory). For ``call`` and ``assert`` it forks once more:

    harness (test code, trusted)  <--pipes, plain data only-->  candidate

The candidate process executes the submitted code and answers calls; the
harness executes the test code, in which every function the candidate defined
is a proxy that sends arguments and receives the return value as plain data
(``plain.py``). Hence

- an object with a rigged ``__eq__`` never reaches the test: it is refused
  as ``non_plain_return`` or rebuilt from its builtin base type;
- ``sys.exit``/``os._exit``/``exit()`` in the candidate ends only the
  candidate: the harness sees it (``early_exit``) and the test fails;
- tampering with builtins, ``sys.modules`` or ``check`` happens in the
  candidate's own address space and cannot touch the test code.

The verdict is the harness's report on its private result pipe, which the
candidate has closed before running any submitted code.
"""

from __future__ import annotations

import builtins
import json
import os
import sys
from typing import Any

import plain
from protocol import ProtocolError, read_frame, write_frame

CANDIDATE_MODULE = "__candidate__"
ERROR_CHARS = 2000


class CandidateExited(BaseException):
    """The candidate process ended before the tests finished."""


class NonPlainReturn(BaseException):
    """The candidate returned something that is not plain data."""


def _describe(exc: BaseException, filename: str) -> str:
    """``Type: message (line N)`` with the line in ``filename``, if any."""
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if line is not None:
        text += f" ({filename} line {line})"
    return text[:ERROR_CHARS]


def _fresh_stdio() -> None:
    """Rebind sys.std* to the real fds 0/1/2 (UTF-8), as a new python3 would."""
    sys.stdin = open(0, encoding="utf-8", errors="strict", closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False, buffering=1)  # noqa: SIM115


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


def _install_site_builtins() -> None:
    """``exit``/``quit`` as site.py would add them (the executor runs with -S)."""

    def _exit(code: Any = None) -> None:
        raise SystemExit(code)

    builtins.exit = _exit  # type: ignore[attr-defined]
    builtins.quit = _exit  # type: ignore[attr-defined]


# --------------------------------------------------------------------------
# candidate side


def _candidate_main(code: Any, filename: str, requests: Any, replies: Any) -> None:
    namespace: dict[str, Any] = {"__name__": CANDIDATE_MODULE, "__builtins__": builtins}
    try:
        exec(code, namespace)  # noqa: S102 - this is the sandbox
    except SystemExit:
        write_frame(replies, {"load": "exit"})
        return
    except BaseException as exc:  # noqa: BLE001 - reported to the harness as a failed load
        write_frame(replies, {"load": "error", "error": _describe(exc, filename)})
        return
    names = [k for k, v in namespace.items() if callable(v) and not k.startswith("__")]
    write_frame(replies, {"load": "ok", "names": names})
    while True:
        try:
            request = read_frame(requests)
        except ProtocolError:
            return
        name = request["call"]
        try:
            args = [plain.decode(a) for a in request["args"]]
            fn = namespace.get(name)
            if fn is None or not callable(fn) or isinstance(fn, type):
                solution = namespace.get("Solution")
                fn = getattr(solution(), name)  # type: ignore[misc]
            value = fn(*args)
        except SystemExit:
            write_frame(replies, {"exit": True})
            return
        except BaseException as exc:  # noqa: BLE001 - the candidate's exception, reported
            write_frame(replies, {"raise": type(exc).__name__, "error": _describe(exc, filename)})
            continue
        try:
            wire = plain.encode(value)
        except plain.NonPlainValue as exc:
            write_frame(replies, {"non_plain": str(exc)})
            continue
        write_frame(replies, {"value": wire})


class _Candidate:
    """The harness's handle on the forked candidate process."""

    def __init__(self, code: Any, filename: str, result_fd: int) -> None:
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        _flush()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(result_fd)
            os.close(req_w)
            os.close(rep_r)
            status = 0
            try:
                _candidate_main(code, filename, os.fdopen(req_r, "rb"), os.fdopen(rep_w, "wb"))
            except BaseException:  # noqa: BLE001 - the harness sees EOF and reports it
                status = 1
            _flush()
            os._exit(status)
        os.close(req_r)
        os.close(rep_w)
        self.requests = os.fdopen(req_w, "wb")
        self.replies = os.fdopen(rep_r, "rb")
        self.flags: set[str] = set()
        self.exited = False
        self.load = self._reply()

    def _reply(self) -> dict[str, Any]:
        try:
            return read_frame(self.replies)
        except ProtocolError:
            self.exited = True
            self.flags.add("early_exit")
            raise CandidateExited("the candidate process ended") from None

    def call(self, name: str, args: tuple[Any, ...]) -> Any:
        if self.exited:
            raise CandidateExited("the candidate process ended")
        try:
            wire_args = [plain.encode(a) for a in args]
        except plain.NonPlainValue as exc:
            raise TypeError(f"test passes a non-plain argument to {name}: {exc}") from None
        try:
            write_frame(self.requests, {"call": name, "args": wire_args})
        except OSError:
            self.exited = True
            self.flags.add("early_exit")
            raise CandidateExited("the candidate process ended") from None
        reply = self._reply()
        if "value" in reply:
            return plain.decode(reply["value"])
        if "exit" in reply:
            self.exited = True
            self.flags.add("early_exit")
            raise CandidateExited("the candidate called exit")
        if "non_plain" in reply:
            self.flags.add("non_plain_return")
            raise NonPlainReturn(reply["non_plain"])
        kind = getattr(builtins, reply.get("raise", ""), None)
        if isinstance(kind, type) and issubclass(kind, Exception):
            raise kind(reply["error"])
        raise RuntimeError(reply["error"])

    def proxy(self, name: str) -> Any:
        def proxy(*args: Any, **kwargs: Any) -> Any:
            if kwargs:
                raise TypeError("keyword arguments are not supported by the call proxy")
            return self.call(name, args)

        proxy.__name__ = name
        return proxy

    def close(self) -> None:
        for stream in (self.requests, self.replies):
            try:
                stream.close()
            except OSError:
                pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


def _report(result_fd: int, result: dict[str, Any]) -> int:
    _flush()
    with os.fdopen(result_fd, "w") as out:
        out.write(json.dumps(result))
    return 0


class SourceInvalid(Exception):
    """The submission does not compile (SyntaxError): a compile_error."""


def _compile_source(filename: str) -> Any:
    """Compile the submission here, in the harness: a syntax error is reported
    as a compile error before any of it runs. Raises SourceInvalid."""
    try:
        with open(filename, "rb") as handle:
            return compile(handle.read(), filename, "exec")
    except (SyntaxError, ValueError, UnicodeDecodeError) as exc:
        raise SourceInvalid(_describe_syntax(exc)) from None


def _describe_syntax(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        line = (exc.text or "").rstrip("\n")
        return f'File "{exc.filename}", line {exc.lineno}\n    {line}\n{type(exc).__name__}: {exc.msg}'[:ERROR_CHARS]
    return f"{type(exc).__name__}: {exc}"[:ERROR_CHARS]


def _start(spec: dict[str, Any], result_fd: int) -> _Candidate:
    _fresh_stdio()
    _install_site_builtins()
    sys.argv = [spec["filename"]]
    code = _compile_source(spec["filename"])
    return _Candidate(code, spec["filename"], result_fd)


def run_call(spec: dict[str, Any], result_fd: int) -> int:
    """``spec``: filename, fn_name, args (plain wire list). Reports
    ``{"value": wire}`` or ``{"error": str, "flags": [...]}``."""
    try:
        candidate = _start(spec, result_fd)
    except SourceInvalid as exc:
        return _report(result_fd, {"compile_error": str(exc)})
    except CandidateExited:
        return _report(result_fd, {"error": "the candidate exited while loading", "flags": ["early_exit"]})
    if candidate.load["load"] != "ok":
        candidate.close()
        flags = ["early_exit"] if candidate.load["load"] == "exit" else []
        return _report(result_fd, {"error": candidate.load.get("error", "exit while loading"), "flags": flags})
    try:
        value = candidate.call(spec["fn_name"], tuple(plain.decode(a) for a in spec["args"]))
        outcome: dict[str, Any] = {"value": plain.encode(value)}
    except (CandidateExited, NonPlainReturn, Exception) as exc:  # noqa: BLE001 - reported as a failed test
        outcome = {"error": _describe(exc, spec["filename"])}
    outcome["flags"] = sorted(candidate.flags)
    candidate.close()
    return _report(result_fd, outcome)


def run_assert(spec: dict[str, Any], result_fd: int) -> int:
    """``spec``: filename, test_code. Every callable the candidate defines is
    bound under its name in the test's namespace. Reports ``{"passed": bool,
    "error": str | None, "flags": [...]}``."""
    try:
        candidate = _start(spec, result_fd)
    except SourceInvalid as exc:
        return _report(result_fd, {"passed": False, "compile_error": str(exc)})
    except CandidateExited:
        return _report(result_fd, {"passed": False, "error": "the candidate exited while loading", "flags": ["early_exit"]})
    if candidate.load["load"] != "ok":
        candidate.close()
        flags = ["early_exit"] if candidate.load["load"] == "exit" else []
        return _report(result_fd, {"passed": False, "error": candidate.load.get("error"), "flags": flags})
    namespace: dict[str, Any] = {"__name__": "__test__", "__builtins__": builtins}
    for name in candidate.load["names"]:
        namespace[name] = candidate.proxy(name)
    error = None
    try:
        exec(compile(spec["test_code"], "<test>", "exec"), namespace)  # noqa: S102 - trusted test code
    except (CandidateExited, NonPlainReturn, Exception) as exc:  # noqa: BLE001 - a failed test
        error = _describe(exc, "<test>")
    flags = sorted(candidate.flags)
    candidate.close()
    passed = error is None and not flags
    if error is None and flags:
        error = "the test code swallowed a candidate fault: " + ", ".join(flags)
    return _report(result_fd, {"passed": passed, "error": error, "flags": flags})


def run_checker(spec: dict[str, Any], result_fd: int) -> int:
    """``spec``: code defining ``check(input_text, output_text,
    reference_text) -> bool``, input, output, reference. Reports
    ``{"passed": bool, "error": str | None}``."""
    _fresh_stdio()
    namespace: dict[str, Any] = {"__name__": "__checker__", "__builtins__": builtins}
    try:
        exec(compile(spec["code"], "<checker>", "exec"), namespace)  # noqa: S102 - trusted checker
        verdict = namespace["check"](spec["input"], spec["output"], spec["reference"])
    except BaseException as exc:  # noqa: BLE001 - a broken checker is reported, not raised
        return _report(result_fd, {"passed": False, "error": _describe(exc, "<checker>"), "checker_failed": True})
    return _report(result_fd, {"passed": verdict is True or verdict == 1, "error": None})


EXECUTOR_MODULES = ("harness", "plain", "protocol", "spawn", "server")


def run_script(spec: dict[str, Any], result_fd: int) -> int:
    """Run ``spec["filename"]`` as ``python3 <filename>`` would, in this warm
    interpreter: ``__main__``, argv, sys.path[0] = cwd, UTF-8 stdio, traceback
    and exit status as python3 gives them, atexit handlers and non-daemon
    threads finished before exit. Returns the exit status."""
    import threading
    import traceback
    import types

    _fresh_stdio()
    try:
        code_object = _compile_source(spec["filename"])
    except SourceInvalid as exc:
        sys.stderr.write(str(exc) + "\n")
        _report(result_fd, {"compile_error": str(exc)})
        return 1
    os.close(result_fd)
    _install_site_builtins()
    for name in EXECUTOR_MODULES:  # a submission's own module of that name must win
        sys.modules.pop(name, None)
    sys.argv = [spec["filename"]]
    sys.path[0:0] = [os.getcwd()]
    main = types.ModuleType("__main__")
    main.__file__ = spec["filename"]
    main.__builtins__ = builtins  # type: ignore[attr-defined]
    sys.modules["__main__"] = main
    code = 0
    try:
        try:
            exec(code_object, main.__dict__)  # noqa: S102 - this is the sandbox
        finally:
            threading._shutdown()  # type: ignore[attr-defined]  # join non-daemon threads, as python3 does
    except SystemExit as exc:
        code = _exit_status(exc.code)
    except BaseException as exc:  # noqa: BLE001 - the program's uncaught exception, printed as python3 does
        traceback.print_exception(exc)
        code = 1
    try:
        import atexit

        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001 - an atexit failure is the program's, python3 prints and goes on
        pass
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    except BaseException as exc:  # noqa: BLE001
        traceback.print_exception(exc)
        code = code or 120  # python3's status when flushing stdout fails at exit
    _flush()
    return code


def _exit_status(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    print(value, file=sys.stderr)
    return 1


MODES = {"call": run_call, "assert": run_assert, "checker": run_checker, "script": run_script}
