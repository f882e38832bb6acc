class Base:
    def run(self):
        return self.step()

    def step(self):
        return 1


class Child(Base):
    def run(self):
        return Base.run(self) + 1

    def step(self):
        return 2


Child().run()
