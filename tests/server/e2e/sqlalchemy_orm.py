"""An application's first hour through an ORM: SQLAlchemy (Debian's 1.4) over
psycopg2, against `forktail serve` (run by tests/server/orm_test.cc with
FORKTAIL_PORT set). create_all, reflection (tables, columns, foreign keys,
indexes), the unit of work, relationships with ON DELETE CASCADE, a nested
transaction (SAVEPOINT) around a duplicate, joins, subqueries, an upsert.
PostgreSQL 15 gives the same answers to every assertion here."""
import datetime
import os

import pytest
from sqlalchemy import (Boolean, Column, DateTime, ForeignKey, Integer, Numeric, String, Text,
                        create_engine, func, inspect, select, text)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, declarative_base, relationship

PORT = int(os.environ.get("FORKTAIL_PORT", "5433"))
Base = declarative_base()


class User(Base):
    __tablename__ = "orm_users"
    id = Column(Integer, primary_key=True)
    email = Column(String(120), unique=True, nullable=False)
    name = Column(String(50))
    active = Column(Boolean, nullable=False, default=True)
    created = Column(DateTime(timezone=True), server_default=func.now())
    posts = relationship("Post", back_populates="user", cascade="all, delete-orphan",
                         passive_deletes=True)


class Post(Base):
    __tablename__ = "orm_posts"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("orm_users.id", ondelete="CASCADE"), index=True,
                     nullable=False)
    title = Column(Text, nullable=False)
    score = Column(Numeric(10, 2), default=0)
    user = relationship("User", back_populates="posts")


@pytest.fixture
def engine():
    engine = create_engine(f"postgresql+psycopg2://tester@127.0.0.1:{PORT}/db", future=True)
    Base.metadata.drop_all(engine)
    Base.metadata.create_all(engine)
    yield engine
    Base.metadata.drop_all(engine)
    engine.dispose()


def test_reflection_sees_what_create_all_made(engine):
    insp = inspect(engine)
    assert {"orm_users", "orm_posts"} <= set(insp.get_table_names())
    assert [c["name"] for c in insp.get_columns("orm_posts")] == ["id", "user_id", "title",
                                                                   "score"]
    (fk,) = insp.get_foreign_keys("orm_posts")
    assert (fk["constrained_columns"], fk["referred_table"], fk["referred_columns"]) == (
        ["user_id"], "orm_users", ["id"])
    assert fk["options"].get("ondelete") == "CASCADE"
    assert [(i["name"], i["column_names"], i["unique"]) for i in insp.get_indexes("orm_posts")] == [
        ("ix_orm_posts_user_id", ["user_id"], False)]
    assert insp.get_pk_constraint("orm_users")["constrained_columns"] == ["id"]
    assert [u["column_names"] for u in insp.get_unique_constraints("orm_users")] == [["email"]]


def test_unit_of_work_relationships_savepoint_and_cascade(engine):
    with Session(engine) as s:
        ann = User(email="a@x", name="Ann", posts=[Post(title="p1", score=1.5), Post(title="p2")])
        s.add_all([ann, User(email="b@x", name="Bob")])
        s.commit()
        rows = s.execute(select(User.id, User.email, User.active).order_by(User.id)).all()
        assert [tuple(r) for r in rows] == [(1, "a@x", True), (2, "b@x", True)]
        assert isinstance(s.get(User, 1).created, datetime.datetime)
        with pytest.raises(IntegrityError):
            with s.begin_nested():  # SAVEPOINT; the duplicate rolls back to it
                s.add(User(email="a@x", name="dup"))
                s.flush()
        s.add(Post(user_id=ann.id, title="p3"))
        s.commit()
        counts = s.execute(select(User.name, func.count(Post.id)).join(Post, isouter=True)
                           .group_by(User.id).order_by(User.name)).all()
        assert [tuple(r) for r in counts] == [("Ann", 3), ("Bob", 0)]
        assert s.scalars(select(User.email).where(User.id.in_(select(Post.user_id)))).all() == [
            "a@x"]
        s.execute(text("UPDATE orm_posts SET score = score + 1 WHERE title = :t"), {"t": "p1"})
        s.commit()
        assert str(s.scalar(select(Post.score).where(Post.title == "p1"))) == "2.50"
        s.delete(s.get(User, ann.id))
        s.commit()
        assert s.scalar(select(func.count()).select_from(Post)) == 0
        upsert = s.execute(text(
            "INSERT INTO orm_users (email, name, active) VALUES ('b@x', 'B2', true) "
            "ON CONFLICT (email) DO UPDATE SET name = excluded.name RETURNING id, name")).all()
        assert [tuple(r) for r in upsert] == [(2, "B2")]
        s.commit()
