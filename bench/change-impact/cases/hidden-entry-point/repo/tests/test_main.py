from cli.main import run


def test_run():
    assert run(['a']) == 1
