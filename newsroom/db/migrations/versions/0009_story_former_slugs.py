"""story former slugs: the slugs a story was published under before

A story's slug is its anchor on the issue pages (`#story-<slug>`), in the
emails and in the feeds. A story renamed keeps its old slugs: the issue pages
keep an element with each old anchor, and its feed items keep their first
slug's id. Rows before have none (NULL).

Revision ID: 0009_story_former_slugs
Revises: 0008_page_updated
"""
from alembic import op
import sqlalchemy as sa


revision = '0009_story_former_slugs'
down_revision = '0008_page_updated'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('stories', schema=None) as batch_op:
        batch_op.add_column(sa.Column('formerly', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('stories', schema=None) as batch_op:
        batch_op.drop_column('formerly')
