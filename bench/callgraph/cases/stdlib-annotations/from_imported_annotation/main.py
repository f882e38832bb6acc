from datetime import datetime
from logging import Logger, getLogger


def stamp(when: datetime) -> str:
    return when.isoformat()


def note(log: Logger) -> None:
    log.debug("x")


stamp(datetime(2020, 1, 1))
note(getLogger("t"))
