"""Order actions."""


class Processor:
    def do_refund(self, order):
        return {"refund": order}

    def do_ship(self, order):
        return {"ship": order}
