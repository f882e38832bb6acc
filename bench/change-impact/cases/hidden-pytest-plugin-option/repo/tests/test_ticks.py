from timing.ticks import tick


def test_tick(clock):
    assert tick(clock) == 1
