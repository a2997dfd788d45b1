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
  candidate's own address space and cannot touch the test code;
- right after the fork the candidate empties the spec, the one dict that
  holds the test code (the exec request, the harness's frames and closures
  share it), so ``sys._getframe``, ``inspect.stack()`` or ``gc.get_objects()``
  find nothing of the tests;
- a candidate function named like a builtin the test code uses (``abs``,
  ``len``, ...) is not bound into the tests: they keep the real builtin.

Detected tampering is reported as the flag ``harness_tamper`` (it does not
change the verdict, which it could not influence): builtins or executor
modules changed by the candidate, a builtin shadowed as above, and reads of
raw process memory, which an audit hook (PEP 578) refuses in the candidate:
``/proc/<pid>/mem`` and ctypes' ``string_at``/``from_address``. What the
hook cannot close: freed heap pages of the executor may still hold bytes of
earlier requests, readable by other raw-memory means.

The verdict is the harness's report on its private result pipe, which the
candidate has closed before running any submitted code.
"""

from __future__ import annotations

import builtins
import json
import os
import re
import sys
from typing import Any

import plain
from protocol import ProtocolError, read_frame, write_frame

CANDIDATE_MODULE = "__candidate__"
ERROR_CHARS = 2000
TAMPER = "harness_tamper"
# Audit events (PEP 578) that read raw memory: refused in candidate code.
RAW_MEMORY_EVENTS = frozenset({"ctypes.string_at", "ctypes.wstring_at", "ctypes.cdata"})
PROC_MEM = re.compile(r"/proc/\d+(?:/task/\d+)?/mem")
GUARDED_MODULES = ("harness", "plain", "protocol")
# Exceptions of the candidate re-raised in the tests as RuntimeError instead.
CONTROL_FLOW_EXCEPTIONS = (StopIteration, StopAsyncIteration)


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


class Guard:
    """Tamper detection inside a candidate process: an audit hook that refuses
    raw memory reads, and a baseline of builtins and the executor modules to
    compare against. Findings go, one line each, to ``tamper_fd`` (a pipe the
    harness reads), written when they happen."""

    def __init__(self, tamper_fd: int) -> None:
        self.fd = tamper_fd
        self.write = os.write  # bound now: the candidate may replace os.write
        self.sent: set[str] = set()
        # taken once, when the executor imported this module (see the end):
        # copying them here, after the fork, would cost a copy of every page
        self.builtins, self.modules, self.module_vars = _BASELINE
        sys.addaudithook(self._hook())

    def note(self, finding: str) -> None:
        if finding in self.sent:
            return
        self.sent.add(finding)
        try:
            self.write(self.fd, (finding.replace("\n", " ")[:200] + "\n").encode("utf-8", "replace"))
        except OSError:
            pass

    def _hook(self) -> Any:
        # Everything the hook uses is bound now: the candidate may replace
        # builtins, and an exception escaping a hook breaks the audited call.
        def audit(
            event: str,
            args: tuple[Any, ...],
            note: Any = self.note,
            raw_events: frozenset[str] = RAW_MEMORY_EVENTS,
            is_instance: Any = isinstance,
            text: tuple[type, ...] = (str, bytes),
            fsdecode: Any = os.fsdecode,
            realpath: Any = os.path.realpath,
            proc_mem: Any = PROC_MEM.fullmatch,
            refused: type = PermissionError,
        ) -> None:
            if event in raw_events:
                note(f"raw memory read ({event})")
                raise refused(f"{event} is not allowed in the sandbox")
            if event == "open" and args and is_instance(args[0], text):
                try:
                    path = realpath(fsdecode(args[0]))
                except Exception:  # noqa: BLE001 - a path realpath cannot resolve is not /proc/<pid>/mem
                    return
                if proc_mem(path):
                    note(f"opened {path}")
                    raise refused(f"reading {path} is not allowed in the sandbox")

        return audit

    def check(self) -> None:
        """Compare builtins and the executor modules with the baseline."""
        now = vars(builtins)
        if now.keys() != self.builtins.keys() or any(now[k] is not v for k, v in self.builtins.items()):
            changed = sorted({k for k in now.keys() ^ self.builtins.keys()}
                             | {k for k, v in self.builtins.items() if now.get(k, v) is not v})
            self.note("builtins changed: " + ", ".join(changed[:5]))
        for name, module in self.modules.items():
            if sys.modules.get(name) is not module:
                self.note(f"sys.modules[{name!r}] replaced")
            elif module is not None:
                current = vars(module)
                if any(current.get(k) is not v for k, v in self.module_vars[name].items()):
                    self.note(f"executor module {name} changed")


def _candidate_main(code: Any, filename: str, requests: Any, replies: Any, guard: Guard) -> None:
    namespace: dict[str, Any] = {"__name__": CANDIDATE_MODULE, "__builtins__": builtins}
    try:
        exec(code, namespace)  # noqa: S102 - this is the sandbox
    except SystemExit:
        write_frame(replies, {"load": "exit"})
        return
    except BaseException as exc:  # noqa: BLE001 - reported to the harness as a failed load
        write_frame(replies, {"load": "error", "error": _describe(exc, filename)})
        return
    finally:
        guard.check()
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
            guard.check()
            write_frame(replies, {"raise": type(exc).__name__, "error": _describe(exc, filename)})
            continue
        guard.check()
        try:
            wire = plain.encode(value)
        except plain.NonPlainValue as exc:
            write_frame(replies, {"non_plain": str(exc)})
            continue
        write_frame(replies, {"value": wire})


class _Candidate:
    """The harness's handle on the forked candidate process."""

    def __init__(self, code: Any, filename: str, result_fd: int, job: dict[str, Any]) -> None:
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        tamper_r, tamper_w = os.pipe()
        _flush()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(result_fd)
            os.close(req_w)
            os.close(rep_r)
            os.close(tamper_r)
            status = 0
            try:
                # The spec (with the test code) is one dict that the exec
                # request, this harness's frames and closures all share:
                # emptied here, the candidate finds nothing of the tests
                # through sys._getframe, inspect or gc.
                job.clear()
                os.set_blocking(tamper_w, False)
                guard = Guard(tamper_w)
                _candidate_main(code, filename, os.fdopen(req_r, "rb"), os.fdopen(rep_w, "wb"), guard)
            except BaseException:  # noqa: BLE001 - the harness sees EOF and reports it
                status = 1
            _flush()
            os._exit(status)
        os.close(req_r)
        os.close(rep_w)
        os.close(tamper_w)
        os.set_blocking(tamper_r, False)
        self.tamper_r = tamper_r
        self.tamper: list[str] = []
        self.requests = os.fdopen(req_w, "wb")
        self.replies = os.fdopen(rep_r, "rb")
        self.flags: set[str] = set()
        self.exited = False
        try:
            self.load = self._reply()
        except CandidateExited:
            self.load = {"load": "exit", "error": "the candidate exited while loading"}

    def read_tamper(self) -> None:
        """Collect what the candidate's guard found so far."""
        while True:
            try:
                chunk = os.read(self.tamper_r, 1 << 16)
            except (BlockingIOError, OSError):
                return
            if not chunk:
                return
            found = [line for line in chunk.decode("utf-8", "replace").splitlines() if line]
            if found:
                self.flags.add(TAMPER)
                self.tamper += found

    def faults(self) -> list[str]:
        """Flags that fail a test: the candidate's faults, not detected tampering."""
        return sorted(self.flags - {TAMPER})

    def _reply(self) -> dict[str, Any]:
        try:
            return read_frame(self.replies)
        except ProtocolError:
            self.read_tamper()
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
        # StopIteration raised into the tests would end a map()/filter() the
        # test iterates as if it were empty: all(map(...)) would pass.
        if isinstance(kind, type) and issubclass(kind, Exception) and kind not in CONTROL_FLOW_EXCEPTIONS:
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
        self.read_tamper()
        os.close(self.tamper_r)

    def report(self, outcome: dict[str, Any]) -> dict[str, Any]:
        """``outcome`` plus the flags and what the guard found."""
        outcome["flags"] = sorted(self.flags)
        if self.tamper:
            outcome["tamper"] = self.tamper[:10]
        return outcome


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
    sys.argv = [spec["filename"]]
    code = _compile_source(spec["filename"])
    return _Candidate(code, spec["filename"], result_fd, spec)


def run_call(spec: dict[str, Any], result_fd: int) -> int:
    """``spec``: filename, fn_name, args (plain wire list). Reports
    ``{"value": wire}`` or ``{"error": str, "flags": [...]}``."""
    try:
        candidate = _start(spec, result_fd)
    except SourceInvalid as exc:
        return _report(result_fd, {"compile_error": str(exc)})
    if candidate.load["load"] != "ok":
        candidate.close()
        if candidate.load["load"] == "exit":
            candidate.flags.add("early_exit")
        return _report(result_fd, candidate.report({"error": candidate.load.get("error", "exit while loading")}))
    try:
        value = candidate.call(spec["fn_name"], tuple(plain.decode(a) for a in spec["args"]))
        outcome: dict[str, Any] = {"value": plain.encode(value)}
    except (CandidateExited, NonPlainReturn, Exception) as exc:  # noqa: BLE001 - reported as a failed test
        outcome = {"error": _describe(exc, spec["filename"])}
    candidate.close()
    return _report(result_fd, candidate.report(outcome))


def run_assert(spec: dict[str, Any], result_fd: int) -> int:
    """``spec``: filename, test_code. Every callable the candidate defines is
    bound under its name in the test's namespace. Reports ``{"passed": bool,
    "error": str | None, "flags": [...]}``."""
    try:
        candidate = _start(spec, result_fd)
    except SourceInvalid as exc:
        return _report(result_fd, {"passed": False, "compile_error": str(exc)})
    if candidate.load["load"] != "ok":
        candidate.close()
        if candidate.load["load"] == "exit":
            candidate.flags.add("early_exit")
        return _report(result_fd, candidate.report({"passed": False, "error": candidate.load.get("error")}))
    namespace: dict[str, Any] = {"__name__": "__test__", "__builtins__": builtins}
    error = None
    try:
        test_code = compile(spec["test_code"], "<test>", "exec")
        used = _names_used(test_code)
        for name in candidate.load["names"]:
            if not isinstance(name, str) or not name.isidentifier() or name.startswith("__"):
                continue
            if hasattr(builtins, name):
                # the tests keep the real builtin; shadowing one they use is tampering
                if name in used:
                    candidate.flags.add(TAMPER)
                    candidate.tamper.append(f"defines {name}, a builtin the tests use")
                continue
            namespace[name] = candidate.proxy(name)
        exec(test_code, namespace)  # noqa: S102 - trusted test code
    except (CandidateExited, NonPlainReturn, Exception) as exc:  # noqa: BLE001 - a failed test
        error = _describe(exc, "<test>")
    candidate.close()
    faults = candidate.faults()
    passed = error is None and not faults
    if error is None and faults:
        error = "the test code swallowed a candidate fault: " + ", ".join(faults)
    return _report(result_fd, candidate.report({"passed": passed, "error": error}))


def _names_used(code: Any) -> set[str]:
    """Every global or attribute name ``code`` and its nested code objects use."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names_used(const)
    return names


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
    filename = spec["filename"]
    spec.clear()
    Guard(-1)  # refuses raw memory reads; a script's output is judged on the host, nothing to report
    for name in EXECUTOR_MODULES:  # a submission's own module of that name must win
        sys.modules.pop(name, None)
    sys.argv = [filename]
    sys.path[0:0] = [os.getcwd()]
    main = types.ModuleType("__main__")
    main.__file__ = filename
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


# exit/quit as site.py would add them, once: builtins must match the baseline
_install_site_builtins()


def _baseline() -> tuple[dict[str, Any], dict[str, Any], dict[str, dict[str, Any]]]:
    modules = {name: sys.modules.get(name) for name in GUARDED_MODULES}
    return (
        dict(vars(builtins)),
        modules,
        {name: dict(vars(module)) for name, module in modules.items() if module is not None},
    )


_BASELINE = _baseline()
