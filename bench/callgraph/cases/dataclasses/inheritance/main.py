from dataclasses import dataclass


@dataclass
class Base:
    id: int

    def key(self):
        return "k" + str(self.id)


@dataclass
class User(Base):
    name: str = "anon"

    def key(self):
        return super().key() + self.name


u = User(1, "bob")
u.key()
