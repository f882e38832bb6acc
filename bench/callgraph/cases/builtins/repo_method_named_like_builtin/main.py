class Bag:
    def __init__(self):
        self.items = []

    def append(self, x):
        self.items.append(x)


bag = Bag()
bag.append(1)
plain = [0]
plain.append(2)
