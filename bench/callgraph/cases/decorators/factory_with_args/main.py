def retry(times):
    def decorate(fn):
        def runner(*a):
            last = None
            for _ in range(times):
                last = fn(*a)
            return last

        return runner

    return decorate


@retry(2)
def fetch(x):
    return x


fetch(1)
