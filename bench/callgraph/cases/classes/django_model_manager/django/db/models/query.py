class QuerySet:
    def __init__(self, model=None):
        self.model = model

    def _clone(self):
        return self.__class__(model=self.model)

    def _chain(self):
        return self._clone()

    def filter(self, **kwargs):
        return self._chain()

    def order_by(self, *names):
        return self._chain()

    def all(self):
        return self._chain()

    def count(self):
        return 0
