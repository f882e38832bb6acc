from plugins.app import greet


def test_greet():
    assert greet('a') == 'hello a'
