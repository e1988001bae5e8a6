"""Figure functions: take DataFrames, return matplotlib figures (no file I/O here)."""

from baiuv._extras import require

require(__name__, "pandas", "matplotlib", "seaborn")  # the extra 'pipeline'
