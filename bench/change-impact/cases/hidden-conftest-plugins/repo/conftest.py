pytest_plugins = ["fixtures.db"]
