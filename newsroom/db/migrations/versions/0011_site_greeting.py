"""the emails' greeting in each language (`greeting:` of the site file)

The email opened with a greeting built into the engine ("Dear Reader," /
"Kedves Olvasó!"); it is now the publication's own text, one per language, and
an email without one opens with the lead. Rows before have none (''): the
site file says what the emails say from its next import on.

Revision ID: 0011_site_greeting
Revises: 0010_drafts
"""
from alembic import op
import sqlalchemy as sa


revision = '0011_site_greeting'
down_revision = '0010_drafts'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('site_texts', schema=None) as batch_op:
        batch_op.add_column(sa.Column('greeting', sa.Text(), server_default='', nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('site_texts', schema=None) as batch_op:
        batch_op.drop_column('greeting')
