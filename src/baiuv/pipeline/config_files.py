"""Check the configuration files of a snakemake command line before Snakemake reads them.

Snakemake reads the ``--configfile`` files itself before the workflow starts, so nothing
of the workflow runs first: a missing file ends in a traceback and a YAML error names
neither file nor line. ``python -m baiuv.pipeline.config_files <snakemake arguments>`` reads
each named file as the workflow will (:func:`baiuv.pipeline.config.load_config_file`) and
stops with one line ``invalid configuration: <file>:<line>: <what>`` (decision D267). The
``snakemake`` command of the environment that ``scripts/setup-venv.sh`` creates runs that
check before Snakemake (:func:`install_entry_point`, D299: the environment's own command is
the only thing that runs before Snakemake parses its options), and so does ``reproduce.sh``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from baiuv.pipeline.config import ConfigError, load_config_file

__all__ = ["ENTRY_POINT", "config_files", "install_entry_point", "main"]

#: The ``snakemake`` command written by :func:`install_entry_point` (``{python}``: the
#: environment's interpreter).
ENTRY_POINT = """#!{python}
# The snakemake command of this environment, written by scripts/setup-venv.sh: the
# --configfile files are read first (python -m baiuv.pipeline.config_files), so a missing
# file or a YAML error stops in one line naming the file and line; then Snakemake runs.
import sys

if __name__ == "__main__":
    if any(arg.startswith("--configfile") for arg in sys.argv[1:]):
        from baiuv.pipeline.config_files import main as check_config_files

        if check_config_files():
            sys.exit(1)
    from snakemake.cli import main

    sys.exit(main())
"""

_OPTIONS = ("--configfile", "--configfiles")


def config_files(argv: Sequence[str]) -> list[str]:
    """The files given with ``--configfile``/``--configfiles`` (several values each, or
    ``--configfile=<file>``) in the snakemake arguments ``argv``."""
    files: list[str] = []
    taking = False
    for arg in argv:
        opt, eq, value = arg.partition("=")
        if opt in _OPTIONS:
            taking = not eq
            if eq:
                files.append(value)
        elif arg.startswith("-"):
            taking = False
        elif taking:
            files.append(arg)
    return files


def main(argv: Sequence[str] | None = None) -> int:
    """Read every configuration file of ``argv``; 0 if all read, 1 (one line on stderr)
    otherwise."""
    for path in config_files(sys.argv[1:] if argv is None else argv):
        try:
            load_config_file(path)
        except ConfigError as exc:
            print(f"invalid configuration: {exc}", file=sys.stderr)
            return 1
    return 0


def install_entry_point(path: str | os.PathLike, python: str | None = None) -> Path:
    """Write the ``snakemake`` command :data:`ENTRY_POINT` at ``path`` (executable) for the
    interpreter ``python`` (default: the running one); returns ``path``."""
    target = Path(path)
    text = ENTRY_POINT.format(python=python or sys.executable)
    if not target.exists() or target.read_text() != text:
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        tmp.write_text(text)
        tmp.chmod(0o755)
        tmp.replace(target)
    return target


if __name__ == "__main__":
    sys.exit(main())
