from net.session import Session


def test_budget():
    assert Session().budget() == 5
