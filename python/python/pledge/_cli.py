"""The ``pledge`` console script of the wheel: the Rust command line, run in process."""

import sys

from ._core import console_main


def main() -> None:
    """Runs ``pledge`` with ``sys.argv`` and exits with its exit code."""
    sys.exit(console_main())


if __name__ == "__main__":
    main()
