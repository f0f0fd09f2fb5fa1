import pandas as pd
import pytest
from hypothesis import HealthCheck, settings

from multitest import example_path, load_results

# No test depends on how fast the machine is: Hypothesis's deadline per example and its
# check that generating data is not too slow are timings, which a loaded machine fails
# (each @settings of a test keeps these unless it says otherwise).
settings.register_profile("multitest", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("multitest")


@pytest.fixture(scope="session")
def example():
    """The bundled report data (38 data sets, 8 algorithms, 5x2 cv)."""
    return load_results(example_path())


@pytest.fixture(scope="session")
def example_frame():
    return pd.read_csv(example_path())
