class Thermostat:
    def __init__(self):
        self._target = 20

    @property
    def target(self):
        return self._target

    @target.setter
    def target(self, value):
        self._target = self._clamp(value)

    def _clamp(self, v):
        return max(10, min(30, v))


t = Thermostat()
t.target = 35
print(t.target)
