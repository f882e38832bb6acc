"""if / elif / else arms."""


def classify(score: int) -> str:
    bonus = 0
    if score >= 90:
        grade = "A"
        bonus = 5
    elif score >= 70:
        grade = "B"
    else:
        grade = "C"
    note = "graded"
    return grade + str(bonus)
