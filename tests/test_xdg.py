"""Engramory's XDG folders: the override wins, a relative XDG variable is ignored."""

from __future__ import annotations

import os

import pytest

from engramory.util.xdg import engramory_folder


def test_the_xdg_variable_names_the_base(tmp_path) -> None:
    environ = {"XDG_STATE_HOME": str(tmp_path / "s"), "XDG_CACHE_HOME": str(tmp_path / "c")}
    assert engramory_folder("STATE", environ) == str(tmp_path / "s" / "engramory")
    assert engramory_folder("CACHE", environ) == str(tmp_path / "c" / "engramory")


@pytest.mark.parametrize("value", ["", "   ", "relative/state"])
def test_an_unset_or_relative_xdg_variable_falls_back_to_the_home_default(value: str) -> None:
    home = os.path.expanduser("~")
    folder = engramory_folder("STATE", {"XDG_STATE_HOME": value})
    assert folder == os.path.join(home, ".local", "state", "engramory")
    assert engramory_folder("CACHE", {}) == os.path.join(home, ".cache", "engramory")


def test_the_override_is_the_folder_itself(tmp_path) -> None:
    environ = {"ENGRAMORY_STATE_DIR": str(tmp_path / "mine"), "XDG_STATE_HOME": str(tmp_path)}
    assert engramory_folder("STATE", environ, "ENGRAMORY_STATE_DIR") == str(tmp_path / "mine")
    environ["ENGRAMORY_STATE_DIR"] = "  "  # blank: as if unset
    assert engramory_folder("STATE", environ, "ENGRAMORY_STATE_DIR") == str(tmp_path / "engramory")
