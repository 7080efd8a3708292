#!/usr/bin/env bash
# The `tracker` repository: a small task tracker, written to be asked questions in words.
# Usage: tracker.sh DIR
#
# The story: one commit holds a Python package whose modules share a vocabulary (tasks,
# cache, config, entries), tests and docs that repeat the words of the code they cover (the
# distractors a question must not prefer), and a Rust helper that raises messages built from
# templates. Queries are pasted issues, tracebacks and log lines, as an agent would send them.

. "$(dirname "$0")/lib.sh"
new_repo "$1"

write tracker/__init__.py <<'PY'
"""A small task tracker."""
PY
write tracker/cache.py <<'PY'
"""The cache of the last failed runs, kept between sessions."""

import json
import os
import time

STALE_AFTER_DAYS = 14


class LastFailedCache:
    """Remembers which tasks failed in the last run, so they can be run first."""

    def __init__(self, directory):
        self.path = os.path.join(directory, "lastfailed.json")

    def read(self):
        """The entries stored by the last session, or none when the file is missing."""
        if not os.path.exists(self.path):
            return {}
        with open(self.path) as handle:
            return json.load(handle)

    def write(self, entries):
        """Stores the entries for the next session."""
        with open(self.path, "w") as handle:
            json.dump(entries, handle)

    def prune_stale(self, entries, known_tasks):
        """Drops entries of tasks that no longer exist or that are older than the limit."""
        cutoff = time.time() - STALE_AFTER_DAYS * 86400
        return {
            task: stamp
            for task, stamp in entries.items()
            if task in known_tasks and stamp >= cutoff
        }
PY
write tracker/config.py <<'PY'
"""Reading the tracker's settings."""

DEFAULTS = {"colour": False, "cache_dir": ".tracker", "workers": 1}


class ConfigError(Exception):
    """A settings file that cannot be used."""


def load_settings(pairs, path):
    """Merges the pairs read from a settings file over the defaults."""
    settings = dict(DEFAULTS)
    for key, value in pairs:
        if key not in DEFAULTS:
            raise ConfigError(f"unknown setting '{key}' in {path}")
        settings[key] = value
    return settings
PY
write tracker/storage.py <<'PY'
"""Saving and loading tasks."""

import json


def save_tasks(tasks, path):
    """Writes every task to a JSON file."""
    with open(path, "w") as handle:
        json.dump([task.to_dict() for task in tasks], handle)


def load_tasks(path):
    """Reads the tasks written by save_tasks."""
    with open(path) as handle:
        return json.load(handle)
PY
write tracker/cli.py <<'PY'
"""The command line."""

import argparse

from tracker.cache import LastFailedCache
from tracker.config import load_settings


def main(argv=None):
    """Parses the arguments and runs the tasks, the failed ones first."""
    parser = argparse.ArgumentParser(prog="tracker")
    parser.add_argument("--cache-dir", default=".tracker")
    parser.add_argument("--failed-first", action="store_true")
    args = parser.parse_args(argv)
    settings = load_settings([], "tracker.toml")
    cache = LastFailedCache(args.cache_dir or settings["cache_dir"])
    return cache.read()
PY
write tracker/render.py <<'PY'
"""Printing tasks for people."""


def render_task(task, colour=False):
    """One line per task: its name and its state."""
    mark = "x" if task.done else " "
    line = f"[{mark}] {task.name}"
    return f"\033[1m{line}\033[0m" if colour else line
PY
write tests/test_cache.py <<'PY'
"""Tests of the last failed cache: stale entries, missing files, pruning."""

from tracker.cache import LastFailedCache


def test_missing_cache_reads_as_empty(tmp_path):
    cache = LastFailedCache(str(tmp_path))
    assert cache.read() == {}


def test_stale_entries_are_pruned(tmp_path):
    cache = LastFailedCache(str(tmp_path))
    entries = {"old task": 0, "failed task": 10**10}
    assert cache.prune_stale(entries, {"failed task"}) == {"failed task": 10**10}


def test_failed_entries_survive_the_session(tmp_path):
    cache = LastFailedCache(str(tmp_path))
    cache.write({"failed task": 1})
    assert cache.read() == {"failed task": 1}
PY
write docs/cache.md <<'MD'
# The last failed cache

The tracker keeps the tasks that failed in the last session in a cache, and runs them first
with `--failed-first`. Stale entries are pruned when the session ends: entries of tasks that
no longer exist, and entries older than two weeks.

If the settings name a key the tracker does not know, it stops with
`unknown setting 'colour' in tracker.toml`: check the spelling of the key.
MD
write native/src/selector.rs <<'RS'
//! Rule selectors given on the command line.

/// A selector that names no known rule.
pub fn check_selector(selector: &str, known: &[&str]) -> Result<(), String> {
    if known.contains(&selector) {
        Ok(())
    } else {
        Err(format!("unknown rule selector: `{}`", selector))
    }
}
RS
write native/tests/selector.rs <<'RS'
//! The message users see for a selector that names no rule.

#[test]
fn unknown_selectors_are_reported() {
    let message = "unknown rule selector: `E999`";
    assert!(message.contains("unknown rule selector"));
}
RS
commit "tracker: cache, settings, storage, command line"
