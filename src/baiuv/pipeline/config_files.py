"""Check the configuration files of a snakemake command line before Snakemake reads them.

Snakemake reads the ``--configfile`` files itself before the workflow starts: a missing
file ends in a traceback and a YAML error names neither file nor line. ``reproduce.sh``
runs ``python -m baiuv.pipeline.config_files <its arguments>`` first, which reads each named
file as the workflow will (:func:`baiuv.pipeline.config.load_config_file`) and stops with one
line ``invalid configuration: <file>:<line>: <what>`` (decision D267).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from baiuv.pipeline.config import ConfigError, load_config_file

__all__ = ["config_files", "main"]

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


if __name__ == "__main__":
    sys.exit(main())
