def fast():
    return "fast"


def slow():
    return "slow"


class Picker:
    def pick(self, quick):
        if quick:
            return fast
        return slow


p = Picker()
p.pick(True)()
p.pick(False)()
