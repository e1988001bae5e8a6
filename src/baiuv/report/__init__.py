"""Reporting: Markdown tables (:mod:`.tables`) and the reproduction report that checks every
quantitative claim of the paper against the pipeline's results (:mod:`.reproduction`).
"""

from baiuv._extras import require

require(__name__, "pandas", "yaml")  # the extra 'pipeline'
