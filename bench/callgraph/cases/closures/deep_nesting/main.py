def finish():
    return "done"


def level1():
    def level2():
        def level3():
            return finish()

        return level3()

    return level2()


level1()
