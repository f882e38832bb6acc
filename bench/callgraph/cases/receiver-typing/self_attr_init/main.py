class Logger:
    def log(self, msg):
        return msg


class Outbox:
    def __init__(self):
        self.items = 0

    def push(self, msg):
        self.items += 1


class Mailer:
    def __init__(self, logger):
        self.logger = logger
        self.outbox = Outbox()

    def send(self, msg):
        self.logger.log(msg)
        self.outbox.push(msg)


m = Mailer(Logger())
m.send("hi")
