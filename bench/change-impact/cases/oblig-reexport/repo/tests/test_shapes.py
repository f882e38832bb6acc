from geo import Circle


def test_circle():
    assert Circle(1).r == 1
