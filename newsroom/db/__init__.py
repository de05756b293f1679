"""Database layer: declarative base, engine and session, Alembic migrations."""
