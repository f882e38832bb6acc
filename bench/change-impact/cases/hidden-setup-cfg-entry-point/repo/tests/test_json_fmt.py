from fmt.json_fmt import JsonFormatter


def test_format():
    assert JsonFormatter().format(1) == '1'
