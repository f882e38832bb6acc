class Account:
    def __init__(self, cents):
        self._cents = cents

    @property
    def dollars(self):
        return self._cents / 100

    def summary(self):
        return "$" + str(self.dollars)


a = Account(250)
a.dollars
a.summary()
