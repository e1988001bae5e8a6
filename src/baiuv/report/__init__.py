"""Reporting: Markdown tables (:mod:`.tables`) and the reproduction report that checks every
quantitative claim of the paper against the pipeline's results (:mod:`.reproduction`).
"""
