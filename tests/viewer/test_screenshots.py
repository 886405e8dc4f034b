"""The browser test's screenshots never follow a symbolic link planted in their folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from screenshots import save


def test_a_screenshot_is_written_in_its_folder(tmp_path: Path) -> None:
    written = save(tmp_path / "shots", "item.png", b"\x89PNG")
    assert written.read_bytes() == b"\x89PNG"


def test_a_link_in_place_of_the_file_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    (tmp_path / "shots").mkdir()
    (tmp_path / "shots" / "item.png").symlink_to(target)
    with pytest.raises(OSError):
        save(tmp_path / "shots", "item.png", b"\x89PNG")
    assert target.read_text() == "keep me"


def test_a_link_in_place_of_the_folder_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "shots").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(OSError):
        save(tmp_path / "shots", "item.png", b"\x89PNG")
    assert list(elsewhere.iterdir()) == []


def test_a_name_is_a_name_not_a_path(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="a file name"):
        save(tmp_path, "../item.png", b"")
