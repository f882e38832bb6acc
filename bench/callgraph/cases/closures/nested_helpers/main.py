def outer(x):
    def helper(y):
        return y * 2

    def inner():
        return helper(x)

    return inner()


outer(3)
