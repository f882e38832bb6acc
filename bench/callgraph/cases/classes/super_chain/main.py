class A:
    def __init__(self, x):
        self.x = x

    def setup(self):
        return "A"


class B(A):
    def __init__(self, x):
        super().__init__(x)
        self.y = 2

    def setup(self):
        return super().setup() + "B"


class C(B):
    def setup(self):
        base = super().setup()
        return base + "C"


obj = C(1)
obj.setup()
