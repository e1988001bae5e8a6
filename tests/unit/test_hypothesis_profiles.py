"""The Hypothesis profiles of ``tests/conftest.py``: the default one gives the same answer
for the same commit; ``explore`` draws new examples."""

from hypothesis import settings


def test_the_default_profile_is_derandomised():
    ci = settings.get_profile("ci")
    assert ci.derandomize and ci.database is None and ci.deadline is None
    assert settings.default.derandomize  # the suite runs under it unless told otherwise


def test_the_explore_profile_draws_new_examples():
    explore = settings.get_profile("explore")
    assert (
        not explore.derandomize and explore.max_examples >= settings.get_profile("ci").max_examples
    )
