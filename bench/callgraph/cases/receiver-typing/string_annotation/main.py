class Tree:
    def __init__(self):
        self.root: "Node | None" = None

    def insert(self, v):
        if self.root is None:
            self.root = Node(v)
        else:
            self.root.add(v)

    def size(self) -> int:
        return self.root.count() if self.root else 0


class Node:
    def __init__(self, v):
        self.v = v
        self.children: list["Node"] = []

    def add(self, v):
        child = Node(v)
        self._attach(child)

    def _attach(self, child: "Node"):
        self.children = self.children + [child]

    def count(self) -> int:
        return 1 + sum(c.count() for c in self.children)


t = Tree()
t.insert(1)
t.insert(2)
t.insert(3)
t.size()
