class Greeter:
    def hello(self):
        return "hi"

    greet = hello


class Loud(Greeter):
    def hello(self):
        return "HI"


Greeter().greet()
Loud().greet()
