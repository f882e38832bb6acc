from auth.tokens import check_token, make_token


def test_make_token_is_stable():
    assert make_token("ann") == make_token("ann")


def test_check_token():
    assert check_token("ann", make_token("ann"))
