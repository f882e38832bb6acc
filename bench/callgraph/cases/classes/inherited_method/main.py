class Animal:
    def name(self):
        return "animal"

    def describe(self):
        return "I am " + self.name()


class Dog(Animal):
    def name(self):
        return "dog"


class Puppy(Dog):
    pass


p = Puppy()
p.describe()
a = Animal()
a.describe()
