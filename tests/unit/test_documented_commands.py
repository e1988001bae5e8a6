"""Every Snakemake command the documentation gives parses as it reads.

``--configfile`` takes several values, so a target written after it is read as one more
configuration file: ``snakemake --configfile config/paper.yaml publish`` looks for a file
``publish`` and stops. Each ``snakemake`` or ``./reproduce.sh`` command of the README, the
docs and the configuration files' comments (continuation lines joined) is parsed here with
Snakemake's own argument parser; every configuration file it names must exist.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SOURCES = [
    REPO / "README.md",
    *sorted((REPO / "docs").glob("*.md")),
    *(REPO / "config").glob("*.yaml"),
]
START = re.compile(r"^(?:#\s*)?(snakemake|\./reproduce\.sh|\.venv/bin/snakemake)(\s|$)")


def documented_commands() -> list[tuple[str, str]]:
    """``(where, command)`` for every documented command, continuation lines joined."""
    out = []
    for path in SOURCES:
        lines = path.read_text().splitlines()
        i = 0
        while i < len(lines):
            line = lines[i].strip()
            m = START.match(line)
            if m is None:
                i += 1
                continue
            where = f"{path.relative_to(REPO)}:{i + 1}"
            cmd = line.lstrip("#").strip()
            while cmd.endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd = cmd[:-1] + " " + lines[i].lstrip("#").strip()
            out.append((where, cmd))
            i += 1
    return out


COMMANDS = documented_commands()


def test_the_documentation_gives_commands():
    assert len(COMMANDS) >= 15
    assert any("paper.yaml" in c and "publish" in c for _, c in COMMANDS)


@pytest.mark.parametrize("where,command", COMMANDS, ids=[w for w, _ in COMMANDS])
def test_documented_command_parses_as_it_reads(where, command):
    from snakemake.cli import get_argument_parser

    words = shlex.split(command, comments=True)[1:]
    args = get_argument_parser().parse_args(words)
    for f in args.configfile or []:
        assert str(f).endswith((".yaml", ".yml")) and (REPO / f).is_file(), (
            f"{where}: {f} is read as a configuration file (put targets before --configfile)"
        )
