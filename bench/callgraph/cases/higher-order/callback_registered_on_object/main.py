class Bus:
    def __init__(self):
        self.subscribers = []

    def subscribe(self, fn):
        self.subscribers.append(fn)

    def emit(self):
        for fn in self.subscribers:
            fn()


def on_a():
    return "a"


def on_b():
    return "b"


bus = Bus()
bus.subscribe(on_a)
bus.subscribe(on_b)
bus.emit()
