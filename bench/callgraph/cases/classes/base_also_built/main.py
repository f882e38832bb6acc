class Reader:
    def read(self):
        return self.decode()

    def decode(self):
        return "raw"


class GzipReader(Reader):
    def decode(self):
        return "gz"


Reader().read()
GzipReader().read()
