def task():
    return "done"


def inner(job):
    return job()


def outer(fn):
    return inner(fn)


outer(task)
