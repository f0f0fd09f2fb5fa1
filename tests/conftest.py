import pandas as pd
import pytest

from multitest import example_path, load_results


@pytest.fixture(scope="session")
def example():
    """The bundled report data (38 data sets, 8 algorithms, 5x2 cv)."""
    return load_results(example_path())


@pytest.fixture(scope="session")
def example_frame():
    return pd.read_csv(example_path())
