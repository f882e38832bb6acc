class Circle:
    def __init__(self, r):
        self.r = r


class Square:
    def __init__(self, s):
        self.s = s
