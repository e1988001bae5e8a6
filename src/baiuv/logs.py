"""Logging set-up for pipeline scripts (one log file per job)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path


def setup_logging(path: str | None, name: str = "baiuv") -> logging.Logger:
    """Log INFO messages (and uncaught exceptions) to ``path`` and to stderr."""
    logger = logging.getLogger(name)
    logger.setLevel(logging.INFO)
    logger.handlers.clear()
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(message)s")
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(path, mode="w"))
    for h in handlers:
        h.setFormatter(fmt)
        logger.addHandler(h)

    def _hook(exc_type, exc, tb):
        logger.error("uncaught exception", exc_info=(exc_type, exc, tb))

    sys.excepthook = _hook
    return logger
