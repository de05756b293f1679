"""former slugs: the slugs a glossary entry, reference page or site page was published under before

A record renamed keeps its old slugs; the build writes a page at each old
address that sends the reader on to the new one, so links in emails already
sent, in feeds and in other sites keep working. Rows before have none (NULL).

Revision ID: 0006_former_slugs
Revises: 0005_build_output_mtime
"""
from alembic import op
import sqlalchemy as sa


revision = '0006_former_slugs'
down_revision = '0005_build_output_mtime'
branch_labels = None
depends_on = None


def upgrade() -> None:
    for table in ('entries', 'pages'):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column('formerly', sa.JSON(), nullable=True))


def downgrade() -> None:
    for table in ('entries', 'pages'):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column('formerly')
