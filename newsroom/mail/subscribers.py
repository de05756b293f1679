"""The subscriber list: reading `email,lang` CSV files, storing subscribers, who may be sent to.

The CSV has a header row `email,lang` (the `lang` column may be left empty or
left out: the default language is used). A header row of a list exported from a
mailing service names its columns in its own order (`Email Address,First Name,
Language`): the address and language columns are found by their names, the
others left alone; a list without a header row is `email,lang`. A line with a malformed address, one
longer than mail servers take (RFC 5321) or an unknown language is reported with its line number and
skipped; the rest of the list is still used.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from sqlalchemy import Insert, String, any_, bindparam, func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
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


#: Header names of the address and language columns (lowercase), as lists exported from mailing services
#: name them; other columns are left alone.
EMAIL_COLUMNS = ("email", "e-mail", "email address", "e-mail address", "email_address", "mail")
LANG_COLUMNS = ("lang", "language", "nyelv")


def parse_subscribers(text: str, place: str, languages: tuple[str, ...]) -> tuple[list[ListedSubscriber],
                                                                                 list[Diagnostic]]:
    rows = [(number, [cell.strip() for cell in row]) for number, row in enumerate(csv.reader(io.StringIO(text)), 1)]
    rows = [(number, cells) for number, cells in rows if any(cells) and not cells[0].startswith("#")]
    listed: list[ListedSubscriber] = []
    problems: list[Diagnostic] = []
    seen: set[str] = set()
    email_at, lang_at = 0, 1  # a list without a header row: email,lang
    if rows and not any("@" in cell for cell in rows[0][1]):  # a header row: its names say where each column is
        number, names = rows.pop(0)
        lowered = [name.lower() for name in names]
        email_at = next((i for i, name in enumerate(lowered) if name in EMAIL_COLUMNS), -1)
        lang_at = next((i for i, name in enumerate(lowered) if name in LANG_COLUMNS), -1)
        if email_at < 0:
            problems.append(Diagnostic(place, number, "email", (
                f"the header row names no address column ({', '.join(names)}): name it email (and the "
                "language's lang), e.g. email,lang")))
            rows = []
    for number, cells in rows:
        address = cells[email_at] if email_at < len(cells) else ""
        lang = (cells[lang_at] if 0 <= lang_at < len(cells) else "") or languages[0]
        too_long = _too_long(address)
        if too_long:
            problems.append(Diagnostic(place, number, "email", f"{_shown(address)}: {too_long}; not sent"))
            continue
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


#: The longest address mail servers take (RFC 5321: a path of 256 characters, its angle brackets included, and
#: a local part, before the @, of 64); the subscriber table holds 320, but PostgreSQL refused a longer one
#: and `send` stopped on a traceback.
ADDRESS_LENGTH = 254
LOCAL_PART_LENGTH = 64


def _too_long(address: str) -> str | None:
    """What is too long in `address` for mail servers to take, or None."""
    if len(address) > ADDRESS_LENGTH:
        return (f"an address of {len(address):,} characters; one has at most {ADDRESS_LENGTH} (RFC 5321), "
                "correct it in the list")
    local = address.rpartition("@")[0]
    if len(local) > LOCAL_PART_LENGTH:
        return (f"the part before the @ has {len(local):,} characters; it has at most {LOCAL_PART_LENGTH} "
                "(RFC 5321), correct it in the list")
    return None


def _shown(address: str) -> str:
    """`address` as a message shows it: a long one cut short."""
    return repr(address) if len(address) <= 60 else repr(address[:57] + "...")


class StoredSubscriber(NamedTuple):
    """A listed subscriber as stored: what sending to them needs."""

    id: int
    email: str
    lang: str
    token: str


def store_subscribers(session: Session, listed: Iterable[ListedSubscriber], secret: str,
                      now: dt.datetime) -> list[StoredSubscriber]:
    """Add new subscribers and update the language of known ones; the rows in list order.

    Two runs of `send` at once (a timer's and an editor's, on a team's database) may list the same new
    subscribers: each address is inserted unless the other run inserted it first (then waited for, on
    PostgreSQL), and read back either way; adding them as new rows stopped the second run on a duplicate.

    Plain rows and statements of many rows each, not an ORM object per address, which a list of 65,536 new
    subscribers made, inserted and flushed in most of the 12.7 s `send --dry-run` took (5.5 s now, on PostgreSQL)."""
    listed = list(listed)
    if not listed:
        return []
    stored = _stored(session, [item.email for item in listed])
    new = [{"email": item.email, "lang": item.lang, "token": make_token(secret, item.email), "created_at": now}
           for item in listed if item.email not in stored]
    if new:
        stored.update(_inserted(session, new, now))
        stored.update(_stored(session, [row["email"] for row in new if row["email"] not in stored]))  # another run's
    langs = {stored[item.email].id: item.lang for item in listed}  # an address listed twice: its last line's
    relisted: dict[str, list[int]] = {}  # language → the known subscribers listed in it now
    for row in stored.values():
        if row.id in langs and row.lang != langs[row.id]:
            relisted.setdefault(langs[row.id], []).append(row.id)
    for lang, ids in relisted.items():
        for chunk in _chunks(ids):
            session.execute(update(_TABLE).where(_TABLE.c.id.in_(chunk)).values(lang=lang))
    return [StoredSubscriber(row.id, item.email, langs[row.id], row.token)
            for item in listed for row in (stored[item.email],)]


#: The subscribers' table, which a list is stored into and read from as plain rows.
_TABLE = Subscriber.__table__
#: What a stored subscriber is read as.
_COLUMNS = (_TABLE.c.id, _TABLE.c.email, _TABLE.c.lang, _TABLE.c.token)


def _stored(session: Session, addresses: list[str]) -> dict[str, StoredSubscriber]:
    """The stored subscribers of `addresses`, by address. PostgreSQL is given each chunk of them as one array
    (`= ANY`), not as thousands of values to put in the statement and parse."""
    postgres = session.get_bind().dialect.name == "postgresql"
    found: dict[str, StoredSubscriber] = {}
    for chunk in _chunks(addresses):
        among = (Subscriber.email == any_(bindparam("addresses", chunk, type_=postgresql.ARRAY(String))) if postgres
                 else Subscriber.email.in_(chunk))
        found.update((row.email, StoredSubscriber(*row)) for row in session.execute(select(*_COLUMNS).where(among)))
    return found


#: How many addresses one query asks for: PostgreSQL's driver takes at most 65,535 values a statement, and a
#: list of 70,000 subscribers stopped `send` on a traceback.
ADDRESSES_PER_QUERY = 5000


def _chunks(values: list[Any]) -> Iterator[list[Any]]:
    for start in range(0, len(values), ADDRESSES_PER_QUERY):
        yield values[start:start + ADDRESSES_PER_QUERY]


def _inserted(session: Session, new: list[dict[str, Any]], now: dt.datetime) -> dict[str, StoredSubscriber]:
    """Insert the `new` subscribers but those another run stored meanwhile: those inserted, by address.
    PostgreSQL is given each column as one array (`unnest`), not statements of thousands of values to parse,
    and returns the rows; another database takes them as one executemany, and they are read back."""
    if session.get_bind().dialect.name != "postgresql":
        session.execute(_insert_new(session), new)
        return _stored(session, [row["email"] for row in new])
    names = ("email", "lang", "token")
    rows = func.unnest(*(bindparam(name, [row[name] for row in new], type_=postgresql.ARRAY(String))
                         for name in names)).table_valued(*names).render_derived()
    listed = select(*(rows.c[name] for name in names), bindparam("now", now, type_=_TABLE.c.created_at.type))
    inserted = session.execute(postgresql.insert(_TABLE).from_select([*names, "created_at"], listed)
                               .on_conflict_do_nothing(index_elements=["email"]).returning(*_COLUMNS))
    return {row.email: StoredSubscriber(*row) for row in inserted}


def _insert_new(session: Session) -> Insert:
    """An INSERT of subscribers that leaves out an address stored already (by another run meanwhile), on a
    database other than PostgreSQL (see `_inserted`)."""
    if session.get_bind().dialect.name == "sqlite":
        return sqlite.insert(_TABLE).on_conflict_do_nothing(index_elements=["email"])
    return insert(_TABLE)  # another database: a run at the same moment may still meet a duplicate


def unsubscribed_ids(session: Session) -> set[int]:
    return set(session.scalars(select(Unsubscribe.subscriber_id)))


def sent_ids(session: Session, issue_number: int) -> set[int]:
    return set(session.scalars(select(Send.subscriber_id).where(Send.issue_number == issue_number)))


def sent_issues(session: Session) -> set[int]:
    """The issues sent to at least one subscriber."""
    return set(session.scalars(select(Send.issue_number).distinct()))


def joined_after_sending(session: Session, issue_number: int) -> set[int]:
    """The subscribers first listed after the issue first went out (its first message accepted): none
    while it has not gone out to anyone."""
    first = session.scalar(select(func.min(Send.sent_at)).where(Send.issue_number == issue_number))
    if first is None:
        return set()
    return set(session.scalars(select(Subscriber.id).where(Subscriber.created_at > first)))


def unsubscribe(session: Session, subscriber: Subscriber, method: str, now: dt.datetime) -> bool:
    """Record an unsubscribe; False when it was already recorded (unsubscribing twice is harmless)."""
    existing = session.scalar(select(Unsubscribe).where(Unsubscribe.subscriber_id == subscriber.id))
    if existing is not None:
        return False
    session.add(Unsubscribe(subscriber_id=subscriber.id, method=method, unsubscribed_at=now))
    return True


def subscriber_by_token(session: Session, token: str) -> Subscriber | None:
    return session.scalar(select(Subscriber).where(Subscriber.token == token))
