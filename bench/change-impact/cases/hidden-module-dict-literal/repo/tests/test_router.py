from handlers.router import create


def test_create():
    assert create(1) == {'created': 1}
