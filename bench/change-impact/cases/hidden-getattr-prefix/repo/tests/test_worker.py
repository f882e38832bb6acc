from jobs.worker import handle


def test_handle_refund():
    assert handle({"action": "refund", "order": 3}) == {"refund": 3}


def test_handle_ship():
    assert handle({"action": "ship", "order": 4}) == {"ship": 4}
