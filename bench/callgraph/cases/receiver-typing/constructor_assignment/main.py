class Engine:
    def start(self):
        return "on"


class Radio:
    def start(self):
        return "music"

    def tune(self, f):
        return f


ENGINE = Engine()


def drive():
    e = Engine()
    e.start()
    r = Radio()
    r.tune(101)
    return ENGINE.start()


drive()
