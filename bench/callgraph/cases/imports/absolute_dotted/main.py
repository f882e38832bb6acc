import shapes.area


def total():
    return shapes.area.square(2) + shapes.area.circle(1)


print(total())
