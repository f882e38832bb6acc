from notify.alerts import alert


def test_alert():
    assert alert("ann", "hi") == ["mail ann: hi", "sms ann: hi"]
