"""build state: what each output file was made from

Revision ID: 0002_build_state
Revises: 0002_mail
"""
from alembic import op
import sqlalchemy as sa
import newsroom.db.base


revision = '0002_build_state'
down_revision = '0002_mail'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('build_outputs',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('site', sa.String(length=500), nullable=False),
    sa.Column('path', sa.String(length=500), nullable=False),
    sa.Column('digest', sa.String(length=64), nullable=False),
    sa.Column('fingerprint', sa.String(length=64), nullable=False),
    sa.Column('deps', sa.JSON(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_build_outputs')),
    sa.UniqueConstraint('site', 'path', name=op.f('uq_build_outputs_site'))
    )
    with op.batch_alter_table('build_outputs', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_build_outputs_site'), ['site'], unique=False)
    op.create_table('build_runs',
    sa.Column('site', sa.String(length=500), nullable=False),
    sa.Column('snapshot', sa.String(length=64), nullable=False),
    sa.Column('finished_at', newsroom.db.base.TZDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('site', name=op.f('pk_build_runs'))
    )


    op.create_table('build_memos',
    sa.Column('namespace', sa.String(length=40), nullable=False),
    sa.Column('data', sa.LargeBinary(), nullable=False),
    sa.PrimaryKeyConstraint('namespace', name=op.f('pk_build_memos'))
    )


def downgrade() -> None:
    op.drop_table('build_memos')
    op.drop_table('build_runs')
    with op.batch_alter_table('build_outputs', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_build_outputs_site'))
    op.drop_table('build_outputs')
