"""Letter grades of a mean expected loss per decision (the analysis's, the profile's, the decision rating's)."""

from __future__ import annotations

__all__ = ["GRADES", "grade"]

GRADES: tuple[tuple[float, str], ...] = (
    (0.0, "A+"),
    (0.15, "A"),
    (0.4, "B"),
    (0.8, "C"),
    (1.6, "D"),
)
"""(highest mean loss per decision, grade); above the last bound the grade is F."""


def grade(mean_loss: float) -> str:
    """The letter grade of a mean loss per decision (``A+`` only for no loss at all).

    >>> grade(0.0), grade(0.1), grade(0.5), grade(3.0)
    ('A+', 'A', 'C', 'F')
    """
    for bound, letter in GRADES:
        if mean_loss <= bound + 1e-12:
            return letter
    return "F"
