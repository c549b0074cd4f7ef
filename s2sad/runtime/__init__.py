"""What runs with generated code: tangent types, accumulation, projection, the checks on results.

``support`` holds the names generated modules import; the other modules are the types and
operations those names are built on.
"""
