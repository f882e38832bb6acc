class Plugin:
    def start(self):
        return self.configure()

    def configure(self):
        return {}


class Loud(Plugin):
    def configure(self):
        return {"loud": True}


class Quiet(Plugin):
    pass


Quiet().start()
