"""a reference page's date of last update (`updated:`)

Shown on the page and given as the sitemap's lastmod; content, as an editor
writes it, so it goes out with an export and comes back with an import. Rows
before have none (NULL): `check` warns until it is given.

Revision ID: 0008_page_updated
Revises: 0007_relation_names
"""
from alembic import op
import sqlalchemy as sa


revision = '0008_page_updated'
down_revision = '0007_relation_names'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('pages', schema=None) as batch_op:
        batch_op.add_column(sa.Column('updated', sa.Date(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('pages', schema=None) as batch_op:
        batch_op.drop_column('updated')
