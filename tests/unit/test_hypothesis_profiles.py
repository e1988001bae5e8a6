"""The Hypothesis profiles of ``tests/conftest.py``: the default one gives the same answer
for the same commit; ``explore`` draws new examples."""

import os

from hypothesis import settings


def test_the_default_profile_is_derandomised(request):
    ci = settings.get_profile("ci")
    assert ci.derandomize and ci.database is None and ci.deadline is None
    # the suite runs under it unless told otherwise (--hypothesis-profile, HYPOTHESIS_PROFILE)
    chosen = request.config.getoption("hypothesis_profile", None) or os.environ.get(
        "HYPOTHESIS_PROFILE"
    )
    if chosen is None:
        assert settings.get_current_profile_name() == "ci"
        assert settings.default.derandomize


def test_the_explore_profile_draws_new_examples():
    explore = settings.get_profile("explore")
    assert (
        not explore.derandomize and explore.max_examples >= settings.get_profile("ci").max_examples
    )
