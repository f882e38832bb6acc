def log_calls(fn):
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


@log_calls
def add(a, b):
    return a + b


def compute():
    return add(1, 2)


compute()
