"""Type stubs of the extension module ``pledge._native`` (Rust, PyO3)."""

from typing import List, Optional, Sequence, Tuple

__version__: str

def run(
    argv: Sequence[str],
    cwd: str,
    now: Optional[str] = None,
    git_dir: Optional[str] = None,
    git_work_tree: Optional[str] = None,
    temp_dir: Optional[str] = None,
    mem_available: Optional[int] = None,
    stderr_is_tty: bool = False,
) -> Tuple[int, str, str]:
    """Runs ``pledge ARGV...`` (argv[0] the program name); returns (exit_code, stdout, stderr)."""

def read_scores(
    paths: Sequence[str],
    names: Sequence[Optional[str]],
    measure: Optional[str] = None,
    column: Optional[str] = None,
    labels: List[Tuple[str, float]] = ...,
    input_format: Optional[str] = None,
    filter: Optional[str] = None,
) -> Tuple[int, str]:
    """Reads score files as ``pledge compare --scores``; returns (0, table JSON) or
    (exit_code, the CLI's JSON error object)."""

def read_runs(
    qrels: str,
    runs: Sequence[str],
    measure: str,
    complete: bool = False,
) -> Tuple[int, str]:
    """Reads TREC runs against qrels as ``pledge compare --qrels --run --measure``; returns (0,
    the per-topic table JSON of ``measure``) or (exit_code, the CLI's JSON error object)."""
