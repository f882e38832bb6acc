def describe_name(n):
    return n


def make_model(name):
    class Model:
        def __init__(self):
            self.name = name

        def describe(self):
            return describe_name(self.name)

    return Model()


m = make_model("m")
m.describe()
