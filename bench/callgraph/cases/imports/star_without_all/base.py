def base_fn():
    return 1
