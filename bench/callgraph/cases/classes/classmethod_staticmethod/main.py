class Temperature:
    def __init__(self, celsius):
        self.celsius = celsius

    @classmethod
    def from_fahrenheit(cls, f):
        return cls(Temperature.to_celsius(f))

    @staticmethod
    def to_celsius(f):
        return (f - 32) * 5 / 9

    def warmer(self, delta):
        return self.from_celsius(self.celsius + delta)

    @classmethod
    def from_celsius(cls, c):
        return cls(c)


class Kelvin(Temperature):
    def __init__(self, celsius):
        super().__init__(celsius)
        self.kelvin = celsius + 273.15


t = Temperature.from_fahrenheit(212)
t.warmer(5)
Temperature.to_celsius(50)
k = Kelvin.from_celsius(0)
