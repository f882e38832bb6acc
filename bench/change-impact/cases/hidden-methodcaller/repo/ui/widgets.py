class Button:
    def __init__(self, label):
        self.label = label

    def render(self):
        return '[' + self.label + ']'
