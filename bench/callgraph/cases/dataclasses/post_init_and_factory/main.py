from dataclasses import dataclass, field


def new_tags():
    return ["default"]


def slugify(s):
    return s


@dataclass
class Item:
    name: str
    tags: list = field(default_factory=new_tags)
    slug: str = ""

    def __post_init__(self):
        self.slug = slugify(self.name)


Item("Hello World")
