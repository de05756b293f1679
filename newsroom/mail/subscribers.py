"""The subscriber list: reading `email,lang` CSV files, storing subscribers, who may be sent to.

The CSV has a header row `email,lang` (the `lang` column may be left empty or
left out: the default language is used). A line with a malformed address or
an unknown language is reported with its line number and skipped; the rest
of the list is still used.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from newsroom.diagnostics import Diagnostic
from newsroom.mail.models import Send, Subscriber, Unsubscribe
from newsroom.mail.tokens import make_token, normalise

#: An addr-spec without comments or quoting: what a subscription form accepts.
ADDRESS = re.compile(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+"
                     r"[A-Za-z]{2,63}$")


@dataclass(frozen=True)
class ListedSubscriber:
    """One valid line of a subscriber file."""

    line: int
    email: str
    lang: str


def read_subscriber_file(path: Path, languages: tuple[str, ...]) -> tuple[list[ListedSubscriber], list[Diagnostic]]:
    """Valid subscribers in file order, and a diagnostic for each line that is not."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        return [], [Diagnostic(str(path), None, "", f"cannot read the subscriber file: {error}")]
    return parse_subscribers(text, str(path), languages)


def parse_subscribers(text: str, place: str, languages: tuple[str, ...]) -> tuple[list[ListedSubscriber],
                                                                                 list[Diagnostic]]:
    rows = list(csv.reader(io.StringIO(text)))
    listed: list[ListedSubscriber] = []
    problems: list[Diagnostic] = []
    seen: set[str] = set()
    for number, row in enumerate(rows, start=1):
        cells = [cell.strip() for cell in row]
        if not cells or not any(cells) or cells[0].startswith("#"):
            continue
        if number == 1 and cells[0].lower() == "email":
            continue  # the header row
        address, lang = cells[0], (cells[1] if len(cells) > 1 and cells[1] else languages[0])
        if not ADDRESS.match(address):
            problems.append(Diagnostic(place, number, "email", f"malformed address {address!r}; not sent"))
            continue
        if lang not in languages:
            problems.append(Diagnostic(place, number, "lang",
                                       f"unknown language {lang!r}; expected one of {', '.join(languages)}"))
            continue
        if normalise(address) in seen:
            problems.append(Diagnostic(place, number, "email", f"{address} is listed twice; sent once",
                                       severity="warning"))
            continue
        seen.add(normalise(address))
        listed.append(ListedSubscriber(number, normalise(address), lang))
    if not listed:  # an empty file, or the wrong one: nothing to connect to a server for
        problems.append(Diagnostic(place, None, "", "no subscriber to send to: expected a header row email,lang and "
                                                   "one row per subscriber, e.g. reader@example.org,hu"))
    return listed, problems


def store_subscribers(session: Session, listed: Iterable[ListedSubscriber], secret: str,
                      now: dt.datetime) -> list[Subscriber]:
    """Add new subscribers and update the language of known ones; the rows in list order."""
    listed = list(listed)
    known = {s.email: s for s in session.scalars(select(Subscriber).where(
        Subscriber.email.in_([item.email for item in listed])))} if listed else {}
    rows = []
    for item in listed:
        row = known.get(item.email)
        if row is None:
            row = Subscriber(email=item.email, lang=item.lang, token=make_token(secret, item.email), created_at=now)
            session.add(row)
        row.lang = item.lang
        rows.append(row)
    session.flush()
    return rows


def unsubscribed_ids(session: Session) -> set[int]:
    return set(session.scalars(select(Unsubscribe.subscriber_id)))


def sent_ids(session: Session, issue_number: int) -> set[int]:
    return set(session.scalars(select(Send.subscriber_id).where(Send.issue_number == issue_number)))


def unsubscribe(session: Session, subscriber: Subscriber, method: str, now: dt.datetime) -> bool:
    """Record an unsubscribe; False when it was already recorded (unsubscribing twice is harmless)."""
    existing = session.scalar(select(Unsubscribe).where(Unsubscribe.subscriber_id == subscriber.id))
    if existing is not None:
        return False
    session.add(Unsubscribe(subscriber_id=subscriber.id, method=method, unsubscribed_at=now))
    return True


def subscriber_by_token(session: Session, token: str) -> Subscriber | None:
    return session.scalar(select(Subscriber).where(Subscriber.token == token))
