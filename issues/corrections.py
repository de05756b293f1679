"""What a correction of a published issue needs: readers are shown each one with its reason."""

from __future__ import annotations

#: How a reason is given, as the refusals show it.
EXAMPLE = '--correction --reason "Fixed the chip\'s name in the headline"'


def has_reason(reason: str | None) -> bool:
    """Whether `reason` says something (a blank one shows readers nothing)."""
    return bool(reason and reason.strip())


def reason_missing(number: int, how: str = "add") -> str:
    """The refusal of a correction of the published issue `number` made without a reason; `how` says where the
    option goes ("add", "import with")."""
    return (f"issue {number} is published: readers are shown each correction with its reason; {how} --reason, "
            f"e.g. {EXAMPLE}")
