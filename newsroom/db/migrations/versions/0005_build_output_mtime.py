"""build state: each output file's modification time as the build left it

A file found with another time (a later edit, or a copy restored from a
backup with its own earlier time) was changed by hand; the next build makes
it again. Rows recorded before have none: for them the run's `written_ns`
still decides.

Revision ID: 0005_build_output_mtime
Revises: 0004_build_written
"""
from alembic import op
import sqlalchemy as sa


revision = '0005_build_output_mtime'
down_revision = '0004_build_written'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('build_outputs', schema=None) as batch_op:
        batch_op.add_column(sa.Column('mtime_ns', sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('build_outputs', schema=None) as batch_op:
        batch_op.drop_column('mtime_ns')
