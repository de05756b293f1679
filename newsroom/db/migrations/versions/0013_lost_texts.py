"""texts an earlier upgrade lost: their records marked, so importing their files stores them again

An upgrade of a SQLite database through 0010_drafts, by a newsroom before
this revision, made the entries and pages tables again with foreign keys on:
dropping the old tables deleted every glossary entry's texts and relations
and every page's texts. The records stayed, with the content hash of what
they held, so importing an export made before that upgrade found each file
"unchanged" and stored nothing, `--force` too. A record that has no text in
any language is given an empty hash here: the next import of its file
stores it whole again. No schema changes; a database without such a record
is left as it is.

Revision ID: 0013_lost_texts
Revises: 0012_reason_lang
"""
from alembic import op
import sqlalchemy as sa


revision = '0013_lost_texts'
down_revision = '0012_reason_lang'
branch_labels = None
depends_on = None


def upgrade() -> None:
    for records, texts, key in (('entries', 'entry_texts', 'entry_id'), ('pages', 'page_texts', 'page_id')):
        op.execute(sa.text(f"UPDATE {records} SET content_hash = '' "
                           f"WHERE NOT EXISTS (SELECT 1 FROM {texts} WHERE {texts}.{key} = {records}.id)"))


def downgrade() -> None:
    pass  # the hashes are made again by the next import of each record's file
