"""Running the pledge command line in process, and its errors as exceptions.

Every API function builds the argument list of the ``pledge`` command it stands for, runs it
through the extension module (``pledge._native.run``, the same ``pledge::cli::run`` the binary
calls) with ``--format json``, and parses the JSON the command prints. Only this module reads the
environment (``PLEDGE_NOW``, ``GIT_DIR``, ``GIT_WORK_TREE``, the temporary directory, the memory
available), as ``main.rs`` does for the binary.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import Any, List, Optional, Sequence, Tuple, Union

#: A path argument: a string or an ``os.PathLike`` (``pathlib.Path``).
PathLike = Union[str, "os.PathLike[str]"]

from . import _native

#: Exit codes of the command (``pledge --help``).
OK, FINDINGS, INPUT, STOP, INTERNAL, CANT_CREATE, IO_ERROR, TEMP_FAIL = 0, 1, 2, 3, 70, 73, 74, 75


class PledgeError(Exception):
    """A command refused or failed: the CLI's error, exit code and text.

    ``str(error)`` is what the command prints on stderr: ``error: MESSAGE``, one ``Caused by:``
    line per cause, then ``hint: HINT`` when there is one. ``exit_code`` is the command's exit
    code (1 refusal, 2 bad input, 3 stop rule, 70 internal, 73/74/75 environment).
    """

    def __init__(self, message: str, causes: Sequence[str] = (), hint: Optional[str] = None,
                 exit_code: int = INPUT, notes: Sequence[str] = ()):
        self.message = message
        self.causes: Tuple[str, ...] = tuple(causes)
        self.hint = hint
        self.exit_code = exit_code
        self.notes: Tuple[str, ...] = tuple(notes)
        super().__init__(self.text)

    @property
    def text(self) -> str:
        """The ``error:`` / ``Caused by:`` / ``hint:`` lines, as the command prints them."""
        lines = ["error: " + self.message]
        lines += ["Caused by: " + c for c in self.causes]
        if self.hint is not None:
            lines.append("hint: " + self.hint)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text


class RefusedError(PledgeError):
    """Exit 1: the registration refuses the action, or a check found a problem."""


class InputError(PledgeError):
    """Exit 2: bad usage or bad input (the file, line and what was expected are named)."""


class StopRuleError(PledgeError):
    """Exit 3: the stop rule said stop (too few components)."""


class InternalError(PledgeError):
    """Exit 70: a bug in pledge, not in the input."""


class EnvironmentFailure(PledgeError):
    """Exit 73, 74 or 75: a file or the repository cannot be written (73) or read (74), or a
    temporary failure (75: an unreachable Time-Stamping Authority, a ledger lock held too long)."""


_BY_CODE = {FINDINGS: RefusedError, INPUT: InputError, STOP: StopRuleError, INTERNAL: InternalError,
            CANT_CREATE: EnvironmentFailure, IO_ERROR: EnvironmentFailure, TEMP_FAIL: EnvironmentFailure}


def error_from(code: int, stderr: str) -> PledgeError:
    """The exception for a failed command: its ``--format json`` error object (the last line of
    ``stderr`` that is one), with the note lines before it; the raw text when there is none."""
    cls = _BY_CODE.get(code, PledgeError)
    lines = stderr.splitlines()
    for i in range(len(lines) - 1, -1, -1):
        try:
            obj = json.loads(lines[i])
        except ValueError:
            continue
        if isinstance(obj, dict) and "error" in obj:
            return cls(obj["error"], obj.get("causes") or (), obj.get("hint"),
                       int(obj.get("exit_code", code)), lines[:i])
    text = stderr.strip()
    message = text[len("error: "):] if text.startswith("error: ") else text
    return cls(message or "pledge exited with code %d" % code, (), None, code)


def _mem_available() -> Optional[int]:
    """``MemAvailable`` of ``/proc/meminfo`` in bytes (Linux), ``None`` elsewhere."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def run(argv: Sequence[str], cwd: Optional[PathLike] = None, stderr_is_tty: bool = False) -> Tuple[int, str, str]:
    """Runs ``pledge ARGV...`` in process; returns ``(exit_code, stdout, stderr)``.

    ``argv[0]`` is the program name. ``cwd`` defaults to the current directory. The clock is
    ``PLEDGE_NOW`` when set (a fixed, RFC 3339 time), else the system clock.
    """
    env = os.environ
    return _native.run(
        [os.fspath(a) for a in argv],
        os.path.abspath(os.fspath(cwd)) if cwd is not None else os.getcwd(),
        now=env.get("PLEDGE_NOW") or None,
        git_dir=env.get("GIT_DIR") or None,
        git_work_tree=env.get("GIT_WORK_TREE") or None,
        temp_dir=tempfile.gettempdir(),
        mem_available=_mem_available(),
        stderr_is_tty=stderr_is_tty,
    )


def invoke(argv: List[str], cwd: Optional[PathLike] = None, results: Sequence[int] = (OK,)) -> Tuple[Any, int, List[str]]:
    """Runs ``pledge ARGV... --format json`` and returns ``(parsed stdout, exit code, note
    lines)``. An exit code in ``results`` with JSON on stdout is a result (``verify``'s findings,
    exit 1; the stop rule of ``components``, exit 3); any other non-zero exit raises the
    :class:`PledgeError` subclass of its code.
    """
    code, out, err = run(["pledge"] + argv + ["--format", "json"], cwd)
    if code in results and out.strip():
        return json.loads(out), code, err.splitlines()
    if code == OK:
        return (json.loads(out) if out.strip() else None), code, err.splitlines()
    raise error_from(code, err)


def flags(options: dict) -> List[str]:
    """Command-line flags of keyword options: ``max_per_component=4`` → ``--max-per-component 4``;
    ``True`` → the flag alone, ``False``/``None`` → nothing; a list or tuple repeats the flag."""
    out: List[str] = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            out.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                out += [flag, os.fspath(v) if isinstance(v, os.PathLike) else str(v)]
        else:
            out += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    return out


def console_main() -> int:
    """The ``pledge`` console script: runs the command line with ``sys.argv`` and writes what it
    returns (stderr, then stdout; quiet on a broken pipe), returning the exit code."""
    try:
        tty = sys.stderr.isatty()
    except (AttributeError, ValueError):
        tty = False
    code, out, err = run(["pledge"] + sys.argv[1:], None, tty)
    try:
        sys.stderr.write(err)
        sys.stderr.flush()
    except (BrokenPipeError, OSError):
        pass
    try:
        sys.stdout.buffer.write(out.encode("utf-8"))
        sys.stdout.flush()
    except BrokenPipeError:
        # As the binary: quiet on a broken pipe (`pledge log | head`).
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:
            pass
    return code
