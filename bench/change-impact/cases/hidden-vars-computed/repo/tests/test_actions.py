from handlers.actions import handle_create


def test_handle_create():
    assert handle_create(2) == {'created': 2}
