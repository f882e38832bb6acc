from plugins.greet import hello


def test_hello():
    assert hello('b') == 'hello b'
