class Task:
    def __init__(self, urgent, age):
        self.urgent = urgent
        self.age = age

    @property
    def priority(self):
        return (self.urgent, self.age)
