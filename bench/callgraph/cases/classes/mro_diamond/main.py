class Base:
    def greet(self):
        return "base"

    def hello(self):
        return self.greet()


class Left(Base):
    def greet(self):
        return "left"


class Right(Base):
    def greet(self):
        return "right"

    def extra(self):
        return "r"


class Child(Left, Right):
    pass


c = Child()
c.greet()
c.extra()
c.hello()
