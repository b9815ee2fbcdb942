"""The typed results of the API: frozen dataclasses over the JSON the CLI prints.

Each result keeps the command's ``--format json`` output whole in ``data`` (equal to what
``pledge COMMAND ... --format json`` prints) and exposes its main values as typed fields, with
``to_pandas()`` for the tables (pandas is imported only then).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple


def _pandas():
    try:
        import pandas
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("to_pandas() needs pandas: pip install pandas") from e
    return pandas


def _pair(v: Any) -> Optional[Tuple[float, float]]:
    return (float(v[0]), float(v[1])) if isinstance(v, (list, tuple)) and len(v) == 2 else None


@dataclass(frozen=True)
class ScoreTable:
    """Per-topic scores of several systems, joined by topic id, as pledge read them.

    ``values[s][t]`` is the score of ``systems[s]`` on ``topics[t]`` (in the metric's own scale),
    ``None`` when that system has no score for that topic. Topics and systems keep first-seen
    order. ``notes`` are what the reader noted (e.g. a ``trec_eval`` ``all`` row).
    """

    systems: Tuple[str, ...]
    topics: Tuple[str, ...]
    values: Tuple[Tuple[Optional[float], ...], ...]
    notes: Tuple[str, ...] = ()

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "ScoreTable":
        """The table from the JSON of ``pledge::scores::ScoreTable``."""
        return cls(tuple(d["systems"]), tuple(d["topics"]),
                   tuple(tuple(row) for row in d["values"]), tuple(d.get("notes", ())))

    def scores(self, system: str) -> Dict[str, float]:
        """``{topic: score}`` of one system (topics it has no score for left out).

        Raises ``KeyError`` for an unknown system."""
        if system not in self.systems:
            raise KeyError(system)
        row = self.values[self.systems.index(system)]
        return {t: v for t, v in zip(self.topics, row) if v is not None}

    def mean(self, system: str) -> float:
        """The mean over the topics the system has a score for."""
        s = list(self.scores(system).values())
        return sum(s) / len(s) if s else float("nan")

    def long(self) -> List[Tuple[str, str, float]]:
        """``(topic, system, score)`` rows, topics first-seen order, then systems."""
        rows: List[Tuple[str, str, float]] = []
        for i, t in enumerate(self.topics):
            for s, row in zip(self.systems, self.values):
                v = row[i]
                if v is not None:
                    rows.append((t, s, v))
        return rows

    def to_pandas(self):
        """A wide DataFrame: index ``topic``, one float column per system (NaN where missing)."""
        pd = _pandas()
        data = {s: [float("nan") if v is None else v for v in row] for s, row in zip(self.systems, self.values)}
        return pd.DataFrame(data, index=pd.Index(list(self.topics), name="topic"), columns=list(self.systems))


@dataclass(frozen=True)
class Result:
    """What every command returns: its JSON output whole, its exit code and its notes (the
    ``note:`` / ``warning:`` lines it printed on stderr)."""

    data: Dict[str, Any] = field(repr=False)
    exit_code: int = 0
    notes: Tuple[str, ...] = ()


@dataclass(frozen=True)
class SystemEstimate:
    """One system's estimate: mean over topics, topic count, standard error and interval (the
    method named), as ``systems[]`` of the JSON."""

    name: str
    mean: float
    topics: int
    se: Optional[float]
    interval: Optional[Tuple[float, float]]
    method: Optional[str]
    bootstrap: Optional[Tuple[float, float]]

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "SystemEstimate":
        iv = d.get("interval") or {}
        return cls(d["name"], d["mean"], d["topics"], iv.get("se"), _pair(iv.get("interval")),
                   iv.get("method"), _pair(iv.get("bootstrap")))


@dataclass(frozen=True)
class PairedComparison:
    """``system − baseline``: the difference of means, the paired bootstrap interval and
    reversal rate, the paired t-test, the randomization test and its adjusted p, the effect
    size, and the verdict when a claim was tested (``comparisons[]`` of the JSON)."""

    system: str
    baseline: str
    difference: float
    interval: Optional[Tuple[float, float]]
    reversal_rate: Optional[float]
    t_p: Optional[float]
    t_interval: Optional[Tuple[float, float]]
    randomization_p: Optional[float]
    p_adjusted: Optional[float]
    effect_size: Optional[float]
    verdict: Optional[str]

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "PairedComparison":
        primary = d.get(d.get("primary_unit") or "", None)
        primary = primary if isinstance(primary, dict) else (d.get("paired") or {})
        t = d.get("t_test") or {}
        rnd = d.get("randomization") or {}
        adj = d.get("p_adjusted") or {}
        es = d.get("effect_size") or {}
        # The three-valued verdict of the tested hypothesis (`hypothesis.judgement.verdict`:
        # supported / not supported / inconclusive); None when no hypothesis was tested.
        judgement = (d.get("hypothesis") or {}).get("judgement") or {}
        verdict = judgement.get("verdict")
        return cls(d["system"], d["baseline"], d["difference"], _pair(primary.get("interval")),
                   primary.get("reversal_rate"), t.get("p"), _pair(t.get("ci")), rnd.get("p"),
                   adj.get("p"), es.get("estimate"), verdict)


@dataclass(frozen=True)
class Comparison(Result):
    """The result of :func:`pledge.compare` (and :func:`pledge.analyze`): ``pledge compare
    --format json`` whole in ``data``, the per-system estimates, every comparison, and the
    per-topic scores that were compared (``scores``: read from the score files, or the measure's
    per-topic values of the TREC runs; ``None`` for :func:`pledge.analyze`)."""

    systems: Tuple[SystemEstimate, ...] = ()
    comparisons: Tuple[PairedComparison, ...] = ()
    scores: Optional[ScoreTable] = None

    @classmethod
    def from_json(cls, d: Dict[str, Any], code: int, notes, scores: Optional[ScoreTable] = None) -> "Comparison":
        return cls(d, code, tuple(notes),
                   tuple(SystemEstimate.from_json(s) for s in d.get("systems") or ()),
                   tuple(PairedComparison.from_json(c) for c in d.get("comparisons") or ()),
                   scores)

    def to_pandas(self, table: str = "comparisons"):
        """A DataFrame of ``"comparisons"`` (one row per comparison: difference, intervals,
        tests), ``"systems"`` (one row per system) or ``"topics"`` (the per-topic scores, index
        ``topic``, one column per system)."""
        pd = _pandas()
        if table == "topics":
            if self.scores is None:
                raise ValueError("no per-topic scores: pledge.analyze keeps them in the ledger's inputs (use pledge.read)")
            return self.scores.to_pandas()
        rows = self.comparisons if table == "comparisons" else self.systems if table == "systems" else None
        if rows is None:
            raise ValueError("table must be 'comparisons', 'systems' or 'topics', got %r" % (table,))
        records = []
        for r in rows:
            rec = {}
            for k, v in r.__dict__.items():
                if isinstance(v, tuple):
                    rec[k + "_low"], rec[k + "_high"] = v
                elif v is None and k in ("interval", "t_interval", "bootstrap"):
                    rec[k + "_low"], rec[k + "_high"] = None, None
                else:
                    rec[k] = v
            records.append(rec)
        return pd.DataFrame.from_records(records)


@dataclass(frozen=True)
class Evaluation(Result):
    """The result of :func:`pledge.eval`: ``pledge eval --format json`` whole in ``data``; per
    run its measures, per-topic values and ``all`` means."""

    means: Dict[str, Dict[str, float]] = field(default_factory=dict)

    @classmethod
    def from_json(cls, d: Dict[str, Any], code: int, notes) -> "Evaluation":
        means = {r["tag"]: dict(zip(r["measures"], r["all"])) for r in d.get("runs") or ()}
        return cls(d, code, tuple(notes), means)

    def to_pandas(self):
        """A long DataFrame: ``run``, ``topic``, ``measure``, ``value`` (the per-topic values)."""
        pd = _pandas()
        rows = [(r["tag"], t["topic"], m, v) for r in self.data.get("runs") or ()
                for t in r["topics"] for m, v in zip(r["measures"], t["values"])]
        return pd.DataFrame(rows, columns=["run", "topic", "measure", "value"])


@dataclass(frozen=True)
class Power(Result):
    """The result of :func:`pledge.power`: ``pledge power --format json`` whole in ``data``;
    ``mode`` (``required`` or ``detectable``), and per method (``t``, ``normal``) the answer."""

    mode: Optional[str] = None
    method: Optional[str] = None

    @classmethod
    def from_json(cls, d: Dict[str, Any], code: int, notes) -> "Power":
        return cls(d, code, tuple(notes), d.get("mode"), d.get("method"))

    @property
    def components(self) -> Optional[int]:
        """Components needed by the chosen method (mode ``required``)."""
        r = (self.data.get("requirements") or {}).get(self.method or "t") or {}
        return r.get("components")

    def to_pandas(self):
        """One row per method with the JSON's fields."""
        pd = _pandas()
        per = self.data.get("requirements") or self.data.get("detectable") or {}
        return pd.DataFrame.from_records([dict(v, method=k) for k, v in per.items() if isinstance(v, dict)])


@dataclass(frozen=True)
class Components(Result):
    """The result of :func:`pledge.components` (a dry run): the count and the stop rule's
    decision (``go`` or ``stop``; exit 3 on stop), ``pledge components --dry-run --format json``
    whole in ``data``."""

    study: Optional[str] = None
    decision: Optional[str] = None
    components: Optional[int] = None
    with_candidates: Optional[int] = None
    required: Optional[int] = None

    @classmethod
    def from_json(cls, d: Dict[str, Any], code: int, notes) -> "Components":
        count, stop = d.get("count") or {}, d.get("stop") or {}
        return cls(d, code, tuple(notes), d.get("study"), stop.get("decision"), count.get("components"),
                   count.get("with_candidates"), stop.get("required"))

    def to_pandas(self):
        """The largest components (the JSON's ``count.largest``) as a DataFrame."""
        return _pandas().DataFrame.from_records((self.data.get("count") or {}).get("largest") or [])


@dataclass(frozen=True)
class LedgerResult(Result):
    """The result of a ledger command (:func:`pledge.register`, :func:`pledge.report`): its
    ``--format json`` output whole in ``data``."""


@dataclass(frozen=True)
class Verification(Result):
    """The result of :func:`pledge.verify`: ``ok`` when the ledger and protocols check out
    (exit 0); otherwise exit 1 with the findings in ``data`` (a finding is a result, not an
    exception)."""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0
