def lazy():
    from engines import turbo

    return turbo.spin()


def lazy2():
    import engines.eco

    return engines.eco.idle()


lazy()
lazy2()
