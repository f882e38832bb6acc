class Client:
    def __init__(self):
        self.timeout = 5
