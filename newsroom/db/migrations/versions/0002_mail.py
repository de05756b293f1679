"""subscribers, sends and unsubscribes

Revision ID: 0002_mail
Revises: 0001
Create Date: 2026-11-30 01:00:00
"""
from alembic import op
import sqlalchemy as sa
import newsroom.db.base


revision = '0002_mail'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('subscribers',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('email', sa.String(length=320), nullable=False),
    sa.Column('lang', sa.String(length=8), nullable=False),
    sa.Column('token', sa.String(length=64), nullable=False),
    sa.Column('created_at', newsroom.db.base.TZDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_subscribers')),
    sa.UniqueConstraint('email', name=op.f('uq_subscribers_email')),
    sa.UniqueConstraint('token', name=op.f('uq_subscribers_token'))
    )
    op.create_table('sends',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('issue_number', sa.Integer(), nullable=False),
    sa.Column('subscriber_id', sa.Integer(), nullable=False),
    sa.Column('lang', sa.String(length=8), nullable=False),
    sa.Column('message_id', sa.String(length=250), nullable=False),
    sa.Column('sent_at', newsroom.db.base.TZDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['subscriber_id'], ['subscribers.id'],
                            name=op.f('fk_sends_subscriber_id_subscribers'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_sends')),
    sa.UniqueConstraint('issue_number', 'subscriber_id', name='uq_sends_issue_subscriber')
    )
    with op.batch_alter_table('sends', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_sends_subscriber_id'), ['subscriber_id'], unique=False)

    op.create_table('unsubscribes',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('subscriber_id', sa.Integer(), nullable=False),
    sa.Column('method', sa.String(length=20), nullable=False),
    sa.Column('unsubscribed_at', newsroom.db.base.TZDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['subscriber_id'], ['subscribers.id'],
                            name=op.f('fk_unsubscribes_subscriber_id_subscribers'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_unsubscribes')),
    sa.UniqueConstraint('subscriber_id', name=op.f('uq_unsubscribes_subscriber_id'))
    )


def downgrade() -> None:
    op.drop_table('unsubscribes')
    with op.batch_alter_table('sends', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_sends_subscriber_id'))
    op.drop_table('sends')
    op.drop_table('subscribers')
