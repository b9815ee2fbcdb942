"""pledge: pre-registration and an audit ledger for IR / RAG / LLM evaluation benchmarks.

The Python API of the ``pledge`` command, over the same Rust core (no second implementation):
each function runs the command it is named after in process and returns its ``--format json``
output as a typed, frozen dataclass (``.data`` holds the JSON whole; ``.to_pandas()`` gives the
tables). A refusal or bad input raises a :class:`PledgeError` whose ``str`` is the command's
``error:`` / ``Caused by:`` / ``hint:`` text and whose ``exit_code`` is its exit code.

>>> import pledge
>>> table = pledge.read("correctness.csv", labels={"HALTED": 0})
>>> result = pledge.compare(table, baseline="gpt-4")
>>> result.to_pandas()            # one row per comparison: difference, intervals, tests
>>> result.to_pandas("topics")    # the per-topic scores compared

Score inputs (``scores=``) are a path (``"run.csv"``, or ``"run.csv=NAME"`` to name the one
system of a file), a list of them, a ``{name: path}`` mapping, a :class:`ScoreTable`, or a
pandas / polars DataFrame or pyarrow Table (written to a temporary CSV file for the reader).
Options not named in a signature are passed as flags: ``adjust="bh"`` is ``--adjust bh``.
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native
from ._core import (EnvironmentFailure, InputError, InternalError, PledgeError, RefusedError,
                    StopRuleError, error_from, flags, invoke, run)
from ._results import (Comparison, Components, Evaluation, LedgerResult, PairedComparison, Power,
                       Result, ScoreTable, SystemEstimate, Verification)

__version__ = _native.__version__

__all__ = [
    "read", "compare", "eval", "power", "components", "register", "analyze", "verify", "report",
    "run", "ScoreTable", "Comparison", "SystemEstimate", "PairedComparison", "Evaluation", "Power",
    "Components", "LedgerResult", "Verification", "Result", "PledgeError", "RefusedError",
    "InputError", "StopRuleError", "InternalError", "EnvironmentFailure", "__version__",
]

PathLike = Union[str, "os.PathLike[str]"]


def _is_table(x: Any) -> bool:
    """Whether ``x`` is a pandas / polars DataFrame or a pyarrow Table."""
    mod = type(x).__module__.split(".")[0]
    return mod in ("pandas", "polars", "pyarrow") and hasattr(x, "columns")


def _write_table(x: Any, path: str) -> None:
    """Writes a DataFrame / Table / ScoreTable as CSV (floats at full precision)."""
    if isinstance(x, ScoreTable):
        import csv
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["topic", "system", "score"])
            for t, s, v in x.long():
                w.writerow([t, s, repr(float(v))])
        return
    mod = type(x).__module__.split(".")[0]
    if mod == "pandas":
        import pandas
        x.to_csv(path, index=not isinstance(x.index, pandas.RangeIndex), float_format=None)
    elif mod == "polars":
        x.write_csv(path)
    else:
        import pyarrow.csv
        pyarrow.csv.write_csv(x, path)


def _score_files(scores: Any, tmp: str) -> Tuple[List[str], List[Optional[str]]]:
    """The files and per-file system names (``FILE=NAME``) of a ``scores`` argument; tables are
    written to CSV files in ``tmp``."""
    if isinstance(scores, (str, os.PathLike, ScoreTable)) or _is_table(scores):
        items: List[Tuple[Any, Optional[str]]] = [(scores, None)]
    elif isinstance(scores, Mapping):
        items = [(v, str(k)) for k, v in scores.items()]
    else:
        items = [(s, None) for s in scores]
    paths: List[str] = []
    names: List[Optional[str]] = []
    for i, (item, name) in enumerate(items):
        if isinstance(item, ScoreTable) or _is_table(item):
            p = os.path.join(tmp, "%s.csv" % (name or ("table%d" % (i + 1) if len(items) > 1 else "table")))
            _write_table(item, p)
            paths.append(p)
            # The file is named after the mapping's key: a one-system table read with `column=`
            # takes its system name from the file, as `--column` does.
            names.append(None)
            continue
        s = os.fspath(item)
        if name is None and "=" in s and not os.path.exists(s):
            s, name = s.rsplit("=", 1)
        paths.append(s)
        names.append(name)
    return paths, names


def _scores_argv(paths: Sequence[str], names: Sequence[Optional[str]]) -> List[str]:
    argv: List[str] = []
    for p, n in zip(paths, names):
        argv += ["--scores", p if n is None else "%s=%s" % (p, n)]
    return argv


def _labels(labels: Optional[Mapping[str, float]]) -> List[Tuple[str, float]]:
    return [(str(k), float(v)) for k, v in (labels or {}).items()]


def _read_files(paths, names, measure, column, labels, input_format, filter) -> ScoreTable:
    if not paths:
        raise InputError("no scores given (expected a file, a list or mapping of files, or a table)",
                         hint="pass a path such as \"scores.csv\", a DataFrame or a ScoreTable")
    code, out = _native.read_scores(list(paths), list(names), measure=measure, column=column,
                                    labels=_labels(labels), input_format=input_format, filter=filter)
    if code != 0:
        raise error_from(code, out)
    return ScoreTable.from_json(json.loads(out))


def read(scores: Any, *, measure: Optional[str] = None, column: Optional[str] = None,
         labels: Optional[Mapping[str, float]] = None, input_format: Optional[str] = None,
         filter: Optional[str] = None) -> ScoreTable:
    """Reads per-topic scores as ``pledge compare --scores`` does: any format of ``pledge
    formats`` (detected by content; compressed files too), or a pandas / polars DataFrame or
    pyarrow Table in any layout pledge reads (long ``topic, system, score``; wide ``topic`` +
    one column per system; one system per table with ``column``).

    ``measure`` picks the measure of a file that holds several (aliases work: ``AP`` = ``map``),
    ``column`` one column per file, ``labels`` maps value labels to scores (``{"HALTED": 0}``),
    ``input_format`` overrides detection, ``filter`` picks an lm-eval filter or HELM split.

    Raises :class:`InputError` (exit 2) with the file, line and what was expected.
    """
    with tempfile.TemporaryDirectory(prefix="pledge-") as tmp:
        paths, names = _score_files(scores, tmp)
        return _read_files(paths, names, measure, column, labels, input_format, filter)


def compare(scores: Any = None, *, qrels: Optional[PathLike] = None, runs: Optional[Sequence[PathLike]] = None,
            measure: Optional[str] = None, column: Optional[str] = None,
            labels: Optional[Mapping[str, float]] = None, baseline: Optional[str] = None,
            seed: int = 0, trials: Optional[int] = None, level: Optional[float] = None,
            input_format: Optional[str] = None, filter: Optional[str] = None,
            components: Optional[PathLike] = None, cwd: Optional[PathLike] = None, **options: Any) -> Comparison:
    """Compares systems as ``pledge compare --format json`` does: per-system estimates and
    intervals, and for every pair (or each system against ``baseline``) the paired bootstrap
    interval and reversal rate, the t-test, the randomization test with its adjusted p, the
    effect size (and a verdict with ``kind=``/``margin=``).

    Either ``scores`` (see the module docs) or ``qrels`` with ``runs`` (TREC runs, ``measure``
    default ``map``). Further flags of ``pledge compare`` as keywords (``adjust="bh"``,
    ``missing_topics="zero"``, ``kind="non-inferiority"``, ``margin=0.02``, ...).

    Raises :class:`InputError` (exit 2) on bad input or flags.
    """
    with tempfile.TemporaryDirectory(prefix="pledge-") as tmp:
        argv = ["compare"]
        table = None
        if scores is not None:
            paths, names = _score_files(scores, tmp)
            argv += _scores_argv(paths, names)
        if qrels is not None:
            argv += ["--qrels", os.fspath(qrels)]
        for r in runs or ():
            argv += ["--run", os.fspath(r)]
        argv += flags(dict(measure=measure, column=column, baseline=baseline, seed=seed, trials=trials,
                           level=level, input_format=input_format, filter=filter, components=components))
        argv += flags({"label": ["%s=%s" % (k, v) for k, v in _labels(labels)]})
        argv += flags(options)
        data, code, notes = invoke(argv, cwd)
        if scores is not None:
            table = _read_files(paths, names, measure, column, labels, input_format, filter)
        elif qrels is not None:
            complete = str(options.get("missing_topics", "")).replace("_", "-") == "zero"
            table = _read_runs(qrels, runs or (), measure or "map", complete, cwd)
        return Comparison.from_json(data, code, notes, table)


def _read_runs(qrels: PathLike, runs: Sequence[PathLike], measure: str, complete: bool,
               cwd: Optional[PathLike]) -> ScoreTable:
    """The per-topic values ``compare`` read from TREC runs (paths relative to ``cwd``, as the
    command resolves them)."""
    base = os.fspath(cwd) if cwd is not None else os.getcwd()
    at = lambda p: os.path.join(base, os.fspath(p))
    code, out = _native.read_runs(at(qrels), [at(r) for r in runs], measure, complete)
    if code != 0:
        raise error_from(code, out)
    return ScoreTable.from_json(json.loads(out))


def eval(qrels: PathLike, runs: Union[PathLike, Sequence[PathLike]], *, measures: Sequence[str] = ("map",),
         cwd: Optional[PathLike] = None, **options: Any) -> Evaluation:
    """Per-topic measures of TREC runs against qrels, as ``pledge eval --format json`` (and
    trec_eval) computes them; ``measures`` are trec_eval names or aliases (``nDCG@10``).

    Raises :class:`InputError` (exit 2) on bad input.
    """
    runs = [runs] if isinstance(runs, (str, os.PathLike)) else list(runs)
    argv = ["eval", os.fspath(qrels)] + [os.fspath(r) for r in runs]
    for m in measures:
        argv += ["-m", m]
    data, code, notes = invoke(argv + flags(options), cwd)
    return Evaluation.from_json(data, code, notes)


def power(*, sd: Optional[float] = None, mde: Optional[float] = None, n: Optional[int] = None,
          pilot: Any = None, cwd: Optional[PathLike] = None, **options: Any) -> Power:
    """Components needed for a difference (``sd``, ``mde``), or the difference ``n`` components
    can detect, as ``pledge power --format json``; ``pilot`` scores (paths or tables) estimate
    the SD. Further flags as keywords (``alpha``, ``power``, ``sides``, ``per_component``,
    ``icc``, ``discordant="0.1,0.2"``, ``column``, ``measure``).

    Raises :class:`InputError` (exit 2) on bad input.
    """
    with tempfile.TemporaryDirectory(prefix="pledge-") as tmp:
        argv = ["power"] + flags(dict(sd=sd, mde=mde, n=n))
        if pilot is not None:
            paths, names = _score_files(pilot, tmp)
            argv += flags({"pilot": paths})
            if names and all(names):
                argv += flags({"system_name": names})
        data, code, notes = invoke(argv + flags(options), cwd)
        return Power.from_json(data, code, notes)


def components(protocol: PathLike, *, questions: PathLike, passages: Optional[PathLike] = None,
               cwd: Optional[PathLike] = None, **options: Any) -> Components:
    """Counts components under the protocol's link rules and applies its stop rule, as ``pledge
    components PROTOCOL --dry-run --format json``: nothing is written (no ledger entry, no
    assignment file). A stop is a result (``decision == "stop"``, ``exit_code == 3``), not an
    exception.

    Raises :class:`InputError` (exit 2) on a bad protocol or input.
    """
    argv = ["components", os.fspath(protocol), "--dry-run", "--questions", os.fspath(questions)]
    argv += flags(dict(passages=passages)) + flags(options)
    data, code, notes = invoke(argv, cwd, results=(0, 3))
    return Components.from_json(data, code, notes)


def register(protocol: PathLike, *, cwd: Optional[PathLike] = None, **options: Any) -> LedgerResult:
    """Registers a protocol in the ledger of the git repository at ``cwd``, as ``pledge register
    --format json``.

    Raises :class:`RefusedError` (exit 1) when the registration refuses (every refusal in the
    message), :class:`InputError` (exit 2) on a bad protocol.
    """
    data, code, notes = invoke(["register", os.fspath(protocol)] + flags(options), cwd)
    return LedgerResult(data, code, tuple(notes))


def analyze(protocol: PathLike, scores: Any = None, *, cwd: Optional[PathLike] = None, **options: Any) -> Comparison:
    """Runs the registered analysis, as ``pledge analyze --format json`` (and records it in the
    ledger); ``scores`` as in :func:`compare`, other inputs as keywords (``qrels=``, ``run=[...]``,
    ``components=``).

    Raises :class:`RefusedError` (exit 1) when the registration refuses (unregistered or changed
    protocol, stop rule), :class:`InputError` (exit 2) on bad input.
    """
    with tempfile.TemporaryDirectory(prefix="pledge-") as tmp:
        argv = ["analyze", os.fspath(protocol)]
        if scores is not None:
            paths, names = _score_files(scores, tmp)
            argv += _scores_argv(paths, names)
        data, code, notes = invoke(argv + flags(options), cwd)
        return Comparison.from_json(data, code, notes)


def verify(*protocols: PathLike, cwd: Optional[PathLike] = None, **options: Any) -> Verification:
    """Checks the ledger's hash chain and each protocol against its registration, as ``pledge
    verify --format json``. Findings are a result (``ok`` is ``False``, ``exit_code == 1``).

    Raises :class:`InputError` (exit 2) on bad input, :class:`EnvironmentFailure` when the
    repository cannot be read.
    """
    data, code, notes = invoke(["verify"] + [os.fspath(p) for p in protocols] + flags(options), cwd, results=(0, 1))
    return Verification(data, code, tuple(notes))


def report(*, cwd: Optional[PathLike] = None, **options: Any) -> LedgerResult:
    """The reviewer-facing report's data, as ``pledge report --format json`` (``out=`` and the
    human format write the files; use the command for those).

    Raises :class:`RefusedError` or :class:`InputError` as the command refuses.
    """
    data, code, notes = invoke(["report"] + flags(options), cwd)
    return LedgerResult(data, code, tuple(notes))
