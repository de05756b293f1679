"""build state v2: compressed reads, each output's meta on its own, the reads graph of a folder

The build state is a cache of what the last build made: its tables are
recreated empty (the next build is a full one) rather than converted, and
the remembered results are dropped (they are sharded differently now).

Revision ID: 0003_build_graph
Revises: 0002_build_state
"""
from alembic import op
import sqlalchemy as sa
import newsroom.db.base


revision = '0003_build_graph'
down_revision = '0002_build_state'
branch_labels = None
depends_on = None


def _recreate(outputs: list[sa.Column], runs: list[sa.Column]) -> None:
    """Drop the build-state tables and create them again with these columns besides the common ones."""
    with op.batch_alter_table('build_outputs', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_build_outputs_site'))
    op.drop_table('build_outputs')
    op.drop_table('build_runs')
    op.create_table('build_outputs',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('site', sa.String(length=500), nullable=False),
    sa.Column('path', sa.String(length=500), nullable=False),
    sa.Column('digest', sa.String(length=64), nullable=False),
    sa.Column('fingerprint', sa.String(length=64), nullable=False),
    *outputs,
    sa.PrimaryKeyConstraint('id', name=op.f('pk_build_outputs')),
    sa.UniqueConstraint('site', 'path', name=op.f('uq_build_outputs_site'))
    )
    with op.batch_alter_table('build_outputs', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_build_outputs_site'), ['site'], unique=False)
    op.create_table('build_runs',
    sa.Column('site', sa.String(length=500), nullable=False),
    sa.Column('snapshot', sa.String(length=64), nullable=False),
    sa.Column('finished_at', newsroom.db.base.TZDateTime(), nullable=False),
    *runs,
    sa.PrimaryKeyConstraint('site', name=op.f('pk_build_runs'))
    )


def upgrade() -> None:
    op.execute(sa.text("DELETE FROM build_memos"))
    _recreate([sa.Column('reads', sa.LargeBinary(), nullable=False), sa.Column('meta', sa.JSON(), nullable=True)],
              [sa.Column('graph', sa.LargeBinary(), nullable=True)])


def downgrade() -> None:
    _recreate([sa.Column('deps', sa.JSON(), nullable=False)], [])
