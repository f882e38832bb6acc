"""``python -m impactlens`` = the ``impactlens`` command."""

from impactlens.cli import main

if __name__ == "__main__":
    main(prog_name="impactlens")
