class Root:
    def save(self):
        return ["root"]


class Audit(Root):
    def save(self):
        return ["audit"] + super().save()


class Cache(Root):
    def save(self):
        return ["cache"] + super().save()


class Model(Audit, Cache):
    def save(self):
        return ["model"] + super().save()


Model().save()
