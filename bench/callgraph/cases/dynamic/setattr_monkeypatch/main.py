class Service:
    def fetch(self):
        return "real"


def fake_fetch(self):
    return "fake"


def patch(cls, attr, fn):
    setattr(cls, attr, fn)  # unresolvable: computed setattr


patch(Service, "fet" + "ch", fake_fetch)
Service().fetch()
