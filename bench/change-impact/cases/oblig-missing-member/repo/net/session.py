from net.client import Client


class Session:
    def __init__(self):
        self.client = Client()

    def budget(self):
        return self.client.timeout
