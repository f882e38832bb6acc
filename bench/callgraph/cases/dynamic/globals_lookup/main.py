def task_a():
    return "a"


def task_b():
    return "b"


def run_task(name):
    return globals()["task_" + name]()  # unresolvable: globals


run_task("a")
run_task("b")
