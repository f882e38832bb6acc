import pytest


@pytest.fixture
def clock():
    return [0]
