"""Entry point."""

from shop import checkout


def main():
    print(checkout("ann", [("pen", 10)]))


if __name__ == "__main__":
    main()
