"""The statistical model of the paper: Gaussian instances with unknown variances
(:mod:`.instance`), transportation costs (:mod:`.transport`, numba), the GLR statistics
(:mod:`.glr`, public, next to its kernel :mod:`.glr_kernels`), characteristic times and
optimal allocations (:mod:`.characteristic`, public, next to its oracle kernels
:mod:`.oracle`), and the argument checks shared by the public functions (:mod:`.validate`).
"""
