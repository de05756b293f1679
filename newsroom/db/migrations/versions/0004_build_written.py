"""build state: when the last build of a folder had its files in place

A file of the folder changed later than that (or gone) was changed by hand;
the next build makes it again.

Revision ID: 0004_build_written
Revises: 0003_build_graph
"""
from alembic import op
import sqlalchemy as sa


revision = '0004_build_written'
down_revision = '0003_build_graph'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('build_runs', schema=None) as batch_op:
        batch_op.add_column(sa.Column('written_ns', sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('build_runs', schema=None) as batch_op:
        batch_op.drop_column('written_ns')
