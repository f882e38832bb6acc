from plugins.email import setup


def test_setup():
    registry = {}
    setup(registry)
    assert "email" in registry
