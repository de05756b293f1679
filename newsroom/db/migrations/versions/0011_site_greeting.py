"""the emails' greeting in each language (`greeting:` of the site file)

The email opened with a greeting built into the engine ("Dear Reader," /
"Kedves Olvasó!"); it is now the publication's own text, one per language, and
an email without one opens with the lead. A publication stored before keeps
the greeting its emails had: its rows are given that wording (an upgrade
changes no email), which `export` writes into the site file; the site file
says what the emails say from its next import on.

Revision ID: 0011_site_greeting
Revises: 0010_drafts
"""
from alembic import op
import sqlalchemy as sa


revision = '0011_site_greeting'
down_revision = '0010_drafts'
branch_labels = None
depends_on = None

#: The greeting the engine gave each language's email before this revision.
FORMER_GREETINGS = {'hu': 'Kedves Olvasó!', 'en': 'Dear Reader,'}


def upgrade() -> None:
    with op.batch_alter_table('site_texts', schema=None) as batch_op:
        batch_op.add_column(sa.Column('greeting', sa.Text(), server_default='', nullable=False))
    for lang, greeting in FORMER_GREETINGS.items():
        op.execute(sa.text("UPDATE site_texts SET greeting = :greeting WHERE lang = :lang")
                   .bindparams(greeting=greeting, lang=lang))


def downgrade() -> None:
    with op.batch_alter_table('site_texts', schema=None) as batch_op:
        batch_op.drop_column('greeting')
