from tasks.schedule import order
from tasks.task import Task


def test_order():
    a, b = Task(1, 0), Task(0, 5)
    assert order([b, a]) == [a, b]
