import pytest


@pytest.fixture
def ledger():
    return [3, 4, -2, 1]
