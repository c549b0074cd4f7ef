"""Finding a test program's line by the comment that marks it, so refusal tests can say
which line an error must name without counting lines by hand."""


def line_marked(path: str, marker: str) -> int:
    """The line of ``path`` that ends with the comment ``# <marker>``."""
    with open(path) as handle:
        for number, line in enumerate(handle, 1):
            if line.rstrip().endswith(f"# {marker}"):
                return number
    raise AssertionError(f"no line of {path} is marked {marker}")
