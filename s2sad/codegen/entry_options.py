"""How Numba compiles a generated entry, and its split forward and reverse halves.

Kept in Numba's disk cache, and each index checked: Numba's default reads past an array's end
(``x[i]`` with ``i == len(x)`` gave a number where the plain function raises IndexError); checked,
the compiled call raises and the NumPy path runs it again, raising the user's error at the line.
(In codegen, whose files the generated modules' names hash, so that Numba's cache of them, keyed
on the module's file, changes with these options.)
"""

ENTRY_OPTIONS = {"cache": True, "boundscheck": True}
