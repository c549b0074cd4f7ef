"""Errors raised while generated code runs point at the user's line, not the generated one.

Generated code heads each block with a comment naming the user's file, line and text
(``# quickstart.py:13: z = X @ W + b``); an exception raised inside it is annotated with that
line (an s2sad error takes it as its location).
"""
from __future__ import annotations

import linecache
import os
import re

from .errors import S2SADError, SourceLocation


BLOCK_COMMENT = re.compile(r"^\s*# (?P<file>[^:]+):(?P<line>\d+): (?P<text>.*)$")


def point_at_user_source(error) -> None:
    """Annotate an exception raised inside generated code with the user's source line.

    Called from ``except`` clauses rather than a context manager: ``try`` costs nothing
    when no exception is raised, and the common call is cheap enough for that to count."""
    location = user_location(error.__traceback__)
    if location is None:
        return
    if isinstance(error, S2SADError):
        if error.location is None:
            error.location = location
            error.args = (error.render(),)
    elif hasattr(error, "add_note"):
        error.add_note(f"s2sad: raised by the code generated for {location}: {location.text.strip()}")


class PointingAtUserSource:
    """The same, as a context manager, for callers outside the hot path."""

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        if error is not None:
            point_at_user_source(error)
        return False


POINTING = PointingAtUserSource()  # stateless: one serves every call


def user_location(traceback) -> SourceLocation | None:
    found = None
    while traceback is not None:
        frame = traceback.tb_frame
        filename = frame.f_code.co_filename
        if "s2sad_" in filename or filename.startswith("<s2sad generated"):
            found = (filename, traceback.tb_lineno, frame.f_globals.get("__s2sad_source_file__"))
        traceback = traceback.tb_next
    if found is None:
        return None
    filename, line, source_file = found
    lines = linecache.getlines(filename)
    for index in range(min(line, len(lines)) - 1, -1, -1):
        match = BLOCK_COMMENT.match(lines[index])
        if match:
            user_file, user_line = match["file"], int(match["line"])
            if source_file and os.path.basename(source_file) == os.path.basename(user_file):
                user_file = source_file
            line_text = linecache.getline(user_file, user_line).rstrip("\n")
            if not line_text.strip():  # the file is not readable here: the comment's copy of the line
                return SourceLocation(user_file, user_line, 1, match["text"])
            return SourceLocation(user_file, user_line, len(line_text) - len(line_text.lstrip()) + 1, line_text)
    return None
