"""Output folders and files are created without following a symbolic link (issue 30 §9).

A link planted where answerx writes (a file it names, a folder it creates or names, the
file a user names) is refused with ``SymlinkRefused``; what it points to is untouched.
The folders above, as the user gave them, are resolved as the operating system does.
"""

from __future__ import annotations

import errno
import os
import pickle
from pathlib import Path

import pytest

from answerx.errors import AnswerxError, SymlinkRefused
from answerx.support.nofollow import open_output, output_dir, write_output


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A folder that is not answerx's to write, holding a file with a secret."""
    folder = tmp_path / "victim"
    folder.mkdir()
    (folder / "report.md").write_text("mine\n")
    return folder


def untouched(victim: Path) -> bool:
    return sorted(p.name for p in victim.iterdir()) == ["report.md"] and (
        (victim / "report.md").read_text() == "mine\n"
    )


def test_a_folder_answerx_names_is_never_a_link(tmp_path: Path, victim: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "run-1").symlink_to(victim)

    with output_dir(tmp_path / "out") as out, pytest.raises(SymlinkRefused) as refused:
        out.folder("run-1")

    assert refused.value.path == str(tmp_path / "out" / "run-1")
    assert refused.value.target == str(victim)
    assert untouched(victim)


def test_the_last_folder_of_a_path_is_never_a_link(tmp_path: Path, victim: Path) -> None:
    (tmp_path / "run-1").symlink_to(victim)

    with pytest.raises(SymlinkRefused, match="run-1 is a symbolic link"):
        output_dir(tmp_path / "run-1")

    assert untouched(victim)


def test_a_link_to_nowhere_is_refused_not_created_through(tmp_path: Path) -> None:
    (tmp_path / "run-1").symlink_to(tmp_path / "elsewhere")

    with pytest.raises(SymlinkRefused):
        output_dir(tmp_path / "run-1")

    assert not (tmp_path / "elsewhere").exists()


def test_missing_folders_are_created_and_a_link_among_them_refused(
    tmp_path: Path, victim: Path
) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "made-by-someone-else")  # dangling: "missing"

    with output_dir(tmp_path / "new" / "deep" / "er") as made:
        made.write("x.txt", "x")
    with pytest.raises(SymlinkRefused):
        output_dir(tmp_path / "a" / "b")

    assert (tmp_path / "new" / "deep" / "er" / "x.txt").read_text() == "x"
    assert not (tmp_path / "made-by-someone-else").exists()


def test_the_folders_above_are_followed_as_the_user_gave_them(tmp_path: Path, victim: Path) -> None:
    # A home folder or /tmp that is a link (macOS) is the user's own choice.
    (tmp_path / "mine").symlink_to(victim)

    with output_dir(tmp_path / "mine" / "reports") as out:
        out.write("a.md", "a")
    with output_dir(tmp_path / "mine", follow=True) as same:
        assert same.exists("reports")

    assert (victim / "reports" / "a.md").read_text() == "a"


@pytest.mark.parametrize("mode", ["wb", "w", "ab", "r+b"])
def test_a_file_is_never_opened_through_a_link(tmp_path: Path, victim: Path, mode: str) -> None:
    (tmp_path / "out.jsonl").symlink_to(victim / "report.md")

    with pytest.raises(SymlinkRefused) as refused:
        open_output(tmp_path / "out.jsonl", mode)

    assert isinstance(refused.value, OSError) and refused.value.errno == errno.ELOOP
    assert untouched(victim)


@pytest.mark.parametrize("mode", ["wb", "w", "ab", "a", "r+b"])
def test_a_file_is_never_written_through_a_hard_link(
    tmp_path: Path, victim: Path, mode: str
) -> None:
    os.link(victim / "report.md", tmp_path / "out.jsonl")

    with pytest.raises(SymlinkRefused, match="2 hard links") as refused:
        open_output(tmp_path / "out.jsonl", mode)

    assert refused.value.errno == errno.EMLINK and refused.value.links == 2
    assert untouched(victim)  # not even truncated by the refused "w" open


def test_a_hard_linked_file_may_still_be_read(tmp_path: Path, victim: Path) -> None:
    os.link(victim / "report.md", tmp_path / "mine.md")

    with open_output(tmp_path / "mine.md", "r") as stream:
        assert stream.read() == "mine\n"


def test_a_file_with_one_name_is_truncated_as_open_would(tmp_path: Path) -> None:
    (tmp_path / "out.jsonl").write_text("earlier, longer contents\n")

    with open_output(tmp_path / "out.jsonl", "w") as stream:
        stream.write("new\n")

    assert (tmp_path / "out.jsonl").read_text() == "new\n"


def test_a_link_to_a_folder_at_a_file_s_place_is_refused(tmp_path: Path, victim: Path) -> None:
    (tmp_path / "out.jsonl").symlink_to(victim)

    with pytest.raises(SymlinkRefused):
        open_output(tmp_path / "out.jsonl")
    with pytest.raises(SymlinkRefused):
        write_output(tmp_path / "out.jsonl", b"{}")

    assert untouched(victim)


def test_a_whole_file_replaces_a_hard_link_instead_of_writing_through_it(
    tmp_path: Path, victim: Path
) -> None:
    os.link(victim / "report.md", tmp_path / "report.md")

    write_output(tmp_path / "report.md", "new\n")

    assert (tmp_path / "report.md").read_text() == "new\n"
    assert untouched(victim)


def test_a_failed_whole_file_leaves_the_earlier_one_and_no_partial(tmp_path: Path) -> None:
    (tmp_path / "report.md").write_text("earlier\n")

    with (
        output_dir(tmp_path) as out,
        pytest.raises(RuntimeError),
        out.replacing("report.md") as stream,
    ):
        stream.write(b"half")
        raise RuntimeError("disk full")

    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]
    assert (tmp_path / "report.md").read_text() == "earlier\n"


def test_files_are_opened_as_open_would_open_them(tmp_path: Path) -> None:
    with open_output(tmp_path / "a.txt", "w", encoding="utf-8") as text:
        text.write("é\n")
    with open_output(tmp_path / "a.txt", "a", encoding="utf-8") as text:
        text.write("2\n")
    with open_output(tmp_path / "a.txt", "r+b") as raw:
        raw.truncate(3)

    assert (tmp_path / "a.txt").read_bytes() == "é\n".encode()


def test_a_missing_folder_of_a_file_is_an_ordinary_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as missing:
        open_output(tmp_path / "no" / "such" / "out.jsonl")

    assert not isinstance(missing.value, SymlinkRefused)


def test_a_name_must_be_one_component(tmp_path: Path) -> None:
    with output_dir(tmp_path) as out:
        for name in ("../escape", "a/b", "..", ""):
            with pytest.raises(ValueError, match="not a file name"):
                out.open(name)


def test_the_refusal_is_an_answerx_error_that_pickles_and_says_what_to_do(
    tmp_path: Path,
) -> None:
    refused = SymlinkRefused("/shared/out/run-1", target="/home/me/.ssh")

    again = pickle.loads(pickle.dumps(refused))

    assert isinstance(again, AnswerxError) and isinstance(again, OSError)
    assert (
        str(again)
        == str(refused)
        == (
            "/shared/out/run-1 is a symbolic link (to /home/me/.ssh): answerx does not write "
            "through links in output paths; remove the link, or name the real file or folder"
        )
    )
    assert again.filename == "/shared/out/run-1"
