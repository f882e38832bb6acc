from handlers.router import route


def test_route_create():
    assert route('create', 1) == {'created': 1}
