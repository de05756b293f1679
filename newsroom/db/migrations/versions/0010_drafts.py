"""drafts: a glossary entry or reference page kept and previewed, not yet published (`draft: true`)

A draft is left out of every public build (its page, the lists, the feeds, the search index, the
sitemap); `build --drafts` and `serve` show it, marked. Rows before are published: the column's
server default is false, so an upgrade publishes nothing new and hides nothing.

Revision ID: 0010_drafts
Revises: 0009_story_former_slugs
"""
from alembic import op
import sqlalchemy as sa


revision = '0010_drafts'
down_revision = '0009_story_former_slugs'
branch_labels = None
depends_on = None


def upgrade() -> None:
    for table in ('entries', 'pages'):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column('draft', sa.Boolean(), server_default=sa.false(), nullable=False))


def downgrade() -> None:
    for table in ('entries', 'pages'):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column('draft')
