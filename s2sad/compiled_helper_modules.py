"""The modules defining the helpers compiled code calls (Numba overloads of the generated code's
helpers), each after those it imports from. Named here, not imported (they import Numba), for the
modules that gather them (compiled_overloads), copy them into an emitted file (emit), hash them
into the generated modules' names (transform) and recognise their functions (compiled_float32)."""

HELPER_MODULES = ("compiled_basics", "compiled_helpers", "compiled_linear_algebra", "compiled_lists",
                  "compiled_exact_points", "compiled_sorting", "compiled_repeats", "compiled_rolls",
                  "compiled_index_arrays", "compiled_shared_memory")
