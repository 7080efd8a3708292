#!/usr/bin/env bash
# The `python-receivers` repository: members looked up in the class the code says a receiver
# has, and in its bases.
# Usage: python-receivers.sh DIR
#
# The story: `Store` (store/base.py) declares `name` and defines `save` and `close`;
# `DiskStore(Store)` (imported under another name, `BaseStore`) overrides `save`, which calls the inherited `self.close()` and
# `super().save()`, and assigns the declared `self.name`. `MemoryStore` has a `save` and a
# `close` of its own. `App` keeps the `DiskStore` its constructor is given (`store:
# DiskStore`), so `self.store.save()` is `DiskStore.save`; `flush(other: MemoryStore)` calls
# `MemoryStore.save`; the module's `app = App(...)` makes `app.run()` `App.run`, but a loop's
# `app` in a function is its own, of no known class. `main.py`'s
# untyped `store.save()` may be any of the three: ambiguous.
#
# Then tests, whose receivers are typed by what the code binds to them: pytest fixtures in
# `tests/conftest.py` (`memory` returns a local `MemoryStore()`, `app` what an annotated
# helper returns), a local `DiskStore(...)`, and a `with` on an unannotated factory that
# returns a `MemoryStore`. `scripts/tool.py` has a parameter named like a fixture, but it is
# no test: its `memory.save()` stays untyped, ambiguous.

. "$(dirname "$0")/lib.sh"
new_repo "$1"

write store/__init__.py <<'PY'
PY
write store/base.py <<'PY'
class Store:
    name: str

    def __init__(self):
        self.items = []

    def save(self):
        return len(self.items)

    def close(self):
        self.items = []
PY
write store/disk.py <<'PY'
from .base import Store as BaseStore


class DiskStore(BaseStore):
    def __init__(self, path):
        super().__init__()
        self.name = path

    def save(self):
        self.close()
        return super().save()
PY
write store/memory.py <<'PY'
class MemoryStore:
    def __init__(self):
        self.saved = 0

    def save(self):
        self.saved += 1

    def close(self):
        self.saved = 0
PY
write app.py <<'PY'
from store.disk import DiskStore
from store.memory import MemoryStore


class App:
    def __init__(self, store: DiskStore):
        self.store = store

    def run(self):
        return self.store.save()

    def flush(self, other: MemoryStore):
        other.save()


app = App(DiskStore("data"))
app.run()


def each(apps):
    for app in apps:
        app.flush(None)
PY
write main.py <<'PY'
def handle(store):
    return store.save()
PY
commit "A store hierarchy, an app that keeps one, and an untyped handler"

write tests/conftest.py <<'PY'
import pytest

from app import App
from store.memory import MemoryStore


@pytest.fixture
def memory():
    store = MemoryStore()
    return store


@pytest.fixture
def app(memory):
    yield make_app(memory)


def make_app(store) -> App:
    return App(store)
PY
write tests/test_app.py <<'PY'
from store.disk import DiskStore
from store.memory import MemoryStore


def test_run(app):
    app.run()


def test_flush(memory):
    memory.save()


def test_local():
    store = DiskStore("x")
    store.save()
    with opened() as other:
        other.close()


def opened():
    return MemoryStore()
PY
write scripts/tool.py <<'PY'
def main(memory):
    memory.save()
PY
commit "Tests whose fixtures and locals say what their receivers are"

# Values another project makes: `yaml = pytest.importorskip("yaml")` holds a module the view
# does not have, so `yaml.safe_load()` is not the view's only `safe_load` (`Config`'s); a local
# from a function of unknown origin (`make_config()`) may still be.
write store/config.py <<'PY'
class Config:
    def safe_load(self, text):
        return text
PY
write tests/test_plugins.py <<'PY'
import pytest


def test_loads():
    yaml = pytest.importorskip("yaml")
    data = yaml.safe_load("a: 1")
    cfg = make_config()
    cfg.safe_load(data)
PY
commit "A test of a plugin that may be missing"

# A subclass that declares an attribute its base declares too: its methods' `self.name` is
# its own declaration, as a type checker reads it, not the base's. Its method `set` is no
# bare name: `set(values)` in another method is the builtin.
write store/cached.py <<'PY'
from .disk import DiskStore


class CachedDiskStore(DiskStore):
    name: bytes

    def label(self):
        return self.name

    def set(self, value):
        self.name = value

    def unique(self, values):
        return set(values)
PY
commit "A cached store that declares its name again"

# A module's function called through the module: `store.factory.make()` returns what its
# annotation says, so the test's `made.close()` is `MemoryStore.close`.
write store/factory.py <<'PY'
from .memory import MemoryStore


def make() -> MemoryStore:
    return MemoryStore()
PY
write tests/test_factory.py <<'PY'
import store.factory


def test_make():
    made = store.factory.make()
    made.close()
PY
commit "A factory module and its test"

# Chains and loops. A call's result has the class its function's annotation names
# (`open_jar().flush()` is `Jar.flush`), also through a module (`store.jar.open_jar()`) and a
# class called through one (`store.jar.Jar().labels()`). A loop's variable is an element of
# what it loops over: `self.stores()` says `list[MemoryStore]`, so `store.close()` is
# `MemoryStore.close`; `iter(self)` of a `Jar` is what `Jar.__iter__` says it yields, a
# `Cookie` of the standard library, whose `label` is not the view's only `label` (`Tag`'s).
# A parameter annotated with a class the view does not define (`jar: CookieJar`) has none of
# the view's members; one annotated `Jar` has `Jar`'s, and so has the parameter of an
# override that leaves it unannotated (`LoudReader.read`'s `jar`, as `Reader.read` says).
# `next(it)` is an element of `it`.
write store/jar.py <<'PY'
from http.cookiejar import Cookie, CookieJar
from typing import Iterator

from .memory import MemoryStore


class Jar(CookieJar):
    def __iter__(self) -> Iterator[Cookie]:  # type: ignore[override]
        return super().__iter__()

    def stores(self) -> list[MemoryStore]:
        return [MemoryStore()]

    def labels(self):
        return [cookie.label for cookie in iter(self)]

    def flush(self):
        for store in self.stores():
            store.close()


class Tag:
    def __init__(self):
        self.label = ""


def open_jar() -> Jar:
    return Jar()


def read(jar: CookieJar, other: Jar):
    jar.labels()
    other.labels()
    open_jar().flush()


def first_store(jar: Jar):
    store = next(iter(jar.stores()))
    store.close()


class Reader:
    def read(self, jar: Jar):
        return jar


class LoudReader(Reader):
    def read(self, jar):
        jar.flush()
PY
write tests/test_jar.py <<'PY'
import store.jar


def test_chains():
    labels = store.jar.Jar().labels()
    store.jar.open_jar().flush()
PY
commit "A jar of cookies of the standard library"

# A function whose signature is long (over 600 characters): cut to its start and end, it still
# says what it returns, so `open_many().flush()` is `Jar.flush`.
write store/many.py <<'PY'
from .jar import Jar


def open_many(
    first_label_of_a_very_long_parameter_list: str = "first",
    second_label_of_a_very_long_parameter_list: str = "second",
    third_label_of_a_very_long_parameter_list: str = "third",
    fourth_label_of_a_very_long_parameter_list: str = "fourth",
    fifth_label_of_a_very_long_parameter_list: str = "fifth",
    sixth_label_of_a_very_long_parameter_list: str = "sixth",
    seventh_label_of_a_very_long_parameter_list: str = "seventh",
    eighth_label_of_a_very_long_parameter_list: str = "eighth",
    ninth_label_of_a_very_long_parameter_list: str = "ninth",
    tenth_label_of_a_very_long_parameter_list: str = "tenth",
) -> Jar:
    return Jar()


def flush_many():
    open_many().flush()
PY
commit "A function with a long signature"
