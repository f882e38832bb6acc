class Base:
    @property
    def label(self):
        return "base:" + self.kind()

    def kind(self):
        return "b"


class Derived(Base):
    def kind(self):
        return "d"


class Fancy(Base):
    @property
    def label(self):
        return "fancy"


def show(obj):
    return obj.label


show(Derived())
show(Fancy())
