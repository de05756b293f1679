"""relation names: a glossary relation to a concept that has no entry, by its name

A broader, narrower or related concept may be named instead of linked: a
text (shown as written in every language) or one name per language. Such a
relation has a name and no target slug; rows before all have a target.

Revision ID: 0007_relation_names
Revises: 0006_former_slugs
"""
from alembic import op
import sqlalchemy as sa


revision = '0007_relation_names'
down_revision = '0006_former_slugs'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('relations', schema=None) as batch_op:
        batch_op.add_column(sa.Column('name', sa.JSON(), nullable=True))
        batch_op.alter_column('target', existing_type=sa.String(length=120), nullable=True)


def downgrade() -> None:
    op.execute("DELETE FROM relations WHERE target IS NULL")  # names cannot be kept without the column
    with op.batch_alter_table('relations', schema=None) as batch_op:
        batch_op.alter_column('target', existing_type=sa.String(length=120), nullable=False)
        batch_op.drop_column('name')
