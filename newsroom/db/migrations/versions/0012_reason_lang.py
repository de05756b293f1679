"""the language a change's reason is written in (`--reason-lang`)

A correction's reason is typed once and shown on every language's issue page;
where it is shown in another language it is marked with `lang` (and `dir`), so
screen readers and hyphenation read it as what it is. Rows before have none
(NULL): their reasons are taken to be in the site's first language, the
default of `--reason-lang`.

Revision ID: 0012_reason_lang
Revises: 0011_site_greeting
"""
from alembic import op
import sqlalchemy as sa


revision = '0012_reason_lang'
down_revision = '0011_site_greeting'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('revisions', schema=None) as batch_op:
        batch_op.add_column(sa.Column('reason_lang', sa.String(length=8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('revisions', schema=None) as batch_op:
        batch_op.drop_column('reason_lang')
