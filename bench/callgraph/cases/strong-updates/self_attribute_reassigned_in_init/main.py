class Service:
    def __init__(self):
        self.callback = self.default
        self.callback = self.custom

    def default(self):
        return "default"

    def custom(self):
        return "custom"

    def run(self):
        return self.callback()


Service().run()
