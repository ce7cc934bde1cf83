"""The helper process's quick lane (reviewer_ui.runtime.parsepool.quick) answers only the
tree's calls, only to whoever holds its random key: attacks on its socket change nothing."""

from __future__ import annotations

import multiprocessing
import os
import stat
from multiprocessing.connection import Client

import pytest

from reviewer_ui.runtime import parsepool
from reviewer_ui.treeindex import rows, top_row


@pytest.fixture()
def lane():
    parsepool.run(len, "")  # the helper is running
    assert parsepool.quick(top_row, "no-such-key").result(timeout=30) is None  # and its lane open
    return parsepool._lane


def test_the_lane_answers_tree_calls_in_the_helper(lane):
    assert parsepool.quick(rows, "no-such-key", (), 0, 10).result(timeout=30) is None
    with pytest.raises(ValueError, match="not a quick call"):
        parsepool.quick(os.getpid)  # only the listed calls go that way


def test_the_lane_socket_is_private(lane):
    path, _key = lane
    mode = os.stat(os.path.dirname(path)).st_mode
    assert stat.S_IMODE(mode) == 0o700  # no other user can reach the socket


def test_a_connection_without_the_key_is_refused(lane, tmp_path):
    path, key = lane
    for wrong in (b"x" * 32, key[:-1] + bytes([key[-1] ^ 1])):
        with pytest.raises((multiprocessing.AuthenticationError, EOFError, ConnectionError)):
            conn = Client(path, family="AF_UNIX", authkey=wrong)
            conn.send(("reviewer_ui.treeindex:top_row", ("no-such-key",)))
            conn.recv()
    assert parsepool.quick(top_row, "no-such-key").result(timeout=30) is None  # the lane still answers


def test_a_call_outside_the_list_is_refused_and_has_no_effect(lane, tmp_path):
    path, key = lane
    target = tmp_path / "made-by-the-helper"
    conn = Client(path, family="AF_UNIX", authkey=key)
    try:
        for name, args in (("os:system", (f"touch {target}",)),
                           ("builtins:open", (str(target), "w")),
                           ("reviewer_ui.textdoc:pretty_file", (str(target),))):
            conn.send((name, args))
            status, answer = conn.recv()
            assert status == "error" and "not a quick call" in str(answer)
    finally:
        conn.close()
    assert not target.exists()


def test_after_a_shutdown_the_next_helper_gets_a_lane_of_its_own(lane):
    """A window closing shuts the helper down (reviewer_ui.app); the next window in the same
    process starts another, whose lane must open in a folder that exists, or trees and big
    texts quietly fall back to parsing in the app's threads."""
    old_path, _ = lane
    parsepool.shutdown()
    assert not os.path.exists(os.path.dirname(old_path))
    assert parsepool.quick(top_row, "no-such-key").result(timeout=30) is None
    new_path, _ = parsepool._lane
    assert new_path != old_path and os.path.exists(new_path)
    assert stat.S_IMODE(os.stat(os.path.dirname(new_path)).st_mode) == 0o700
    assert not parsepool._disabled


def test_quitting_prints_no_traceback_from_the_helper(tmp_path):
    """The app removes the lane's folder as it quits, usually before the helper has ended; the
    helper's exit-time unlink of its socket then printed 'FileNotFoundError: ... lane-0' with a
    traceback to the user's terminal. The app's and its helper's stderr stay empty."""
    import subprocess
    import sys
    from pathlib import Path

    script = (
        "from reviewer_ui.runtime import parsepool\n"
        "from reviewer_ui.treeindex import top_row\n"
        "import os, time\n"
        "parsepool.run(len, '')\n"
        "assert parsepool.quick(top_row, 'no-such-key').result(timeout=30) is None\n"
        "deadline = time.monotonic() + 60\n"
        "while not os.path.exists(parsepool._lane[0]) and time.monotonic() < deadline:\n"
        "    time.sleep(0.01)\n"
        "assert os.path.exists(parsepool._lane[0]), 'the helper never opened its lane'\n"
        "import multiprocessing\n"
        "helpers = multiprocessing.active_children()\n"
        "parsepool.shutdown()\n"  # what quitting does (atexit), here while the app still waits
        "for helper in helpers:\n"
        "    helper.join(60)\n"
    )
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(root))
    # communicate() reads stderr to its end: until the helper, which shares it, has exited too
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "FileNotFoundError" not in done.stderr, done.stderr
