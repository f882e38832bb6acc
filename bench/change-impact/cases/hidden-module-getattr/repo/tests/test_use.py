from app.use import when


def test_when():
    assert when('2024-01-02') == (2024, 1, 2)
