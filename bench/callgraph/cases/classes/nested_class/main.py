class Outer:
    class Inner:
        def __init__(self, v):
            self.v = v

        def get(self):
            return self.v

    def __init__(self):
        self.inner = Outer.Inner(3)

    def value(self):
        return self.inner.get()


Outer().value()
