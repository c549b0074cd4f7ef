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
        elif error.location.filename != location.filename:  # met in code the user's line called
            error.reached(location)
        for outer in _outer_user_locations(error.__traceback__, error.location.filename):
            error.reached(outer)  # met in a rule's own code differentiated again (hvp): the user's line too
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
    block = _block_comment(filename, line)
    if block is None:
        return None
    user_file, user_line, text = block
    if source_file and os.path.basename(source_file) == os.path.basename(user_file):
        user_file = source_file
    return _located(user_file, user_line, text)


def _outer_user_locations(traceback, inner_file: str) -> list[SourceLocation]:
    """The user's lines, innermost first, of the generated frames around the one that raised, when
    that one was generated from another file (a rule's source, differentiated again for a Hessian)."""
    frames = []
    while traceback is not None:
        frame = traceback.tb_frame
        filename = frame.f_code.co_filename
        if "s2sad_" in filename or filename.startswith("<s2sad generated"):
            frames.append((filename, traceback.tb_lineno, frame.f_globals.get("__s2sad_source_file__")))
        traceback = traceback.tb_next
    found = []
    for filename, line, source_file in reversed(frames[:-1]):
        block = _block_comment(filename, line)
        if block is None:
            continue
        user_file, user_line, text = block
        if source_file and os.path.basename(source_file) == os.path.basename(user_file):
            user_file = source_file
        location = _located(user_file, user_line, text)
        if location.filename != inner_file and location not in found:
            found.append(location)
    return found


def beneath_generated(location: SourceLocation) -> SourceLocation:
    """A place in code s2sad generated (a Hessian differentiates generated forward code) as the
    user's line it was generated from; any other place as it is."""
    if not os.path.basename(location.filename).startswith("s2sad_") or _heading(location.filename) is None:
        return location  # (a user's own file named s2sad_... is no generated code)
    return _located(location.filename, location.line, location.text)


def _located(user_file: str, user_line: int, text: str) -> SourceLocation:
    for _ in range(8):  # generated code made from generated code (a Hessian's reverse of forward code)
        heading = _heading(user_file) if os.path.basename(user_file).startswith("s2sad_") else None
        if heading is None:
            break
        origin = heading[0]
        # above the first block comment: the function's own line, which the heading names
        user_file, user_line, text = _block_comment(user_file, user_line) or (*heading, text)
        if origin and os.path.basename(origin) == os.path.basename(user_file):
            user_file = origin
    line_text = linecache.getline(user_file, user_line).rstrip("\n")
    if not line_text.strip():  # the file is not readable here: the comment's copy of the line
        return SourceLocation(user_file, user_line, 1, text)
    return SourceLocation(user_file, user_line, len(line_text) - len(line_text.lstrip()) + 1, line_text)


def _block_comment(filename: str, line: int):
    """``(file, line, text)`` of the block comment at or above ``line`` of a generated file."""
    lines = linecache.getlines(filename)
    for index in range(min(line, len(lines)) - 1, -1, -1):
        match = BLOCK_COMMENT.match(lines[index])
        if match:
            return match["file"], int(match["line"]), match["text"]
    return None


GENERATED_FROM = re.compile(r"^# Generated by s2sad \S+ from (?P<path>.+), function `[^`]*` \(line (?P<line>\d+)\)")


def _heading(filename: str) -> tuple[str, int] | None:
    """The source file and the line of the ``def`` a generated file names in its heading."""
    for text in linecache.getlines(filename)[:3]:
        match = GENERATED_FROM.match(text)
        if match:
            return match["path"], int(match["line"])
    return None


def _generated_from(filename: str) -> str | None:
    heading = _heading(filename)
    return heading[0] if heading else None
