class Base:
    def fire(self):
        return self.handler()


class Child(Base):
    def __init__(self):
        self.handler = self.on_event

    def on_event(self):
        return "event"


Child().fire()
