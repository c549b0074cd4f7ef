"""The names generated modules import: ``from s2sad.runtime.support import ...``.

One place to import from, so that the generated code reads the same whichever module of the
runtime a name lives in: accumulation (``accumulate.py``), the tangent types
(``tangents.py``), containers' cotangents and undoing changes in place (``structure.py``),
and methods differentiated by the receiver's type (``methods.py``).
"""
from __future__ import annotations

from operator import concat  # forward code joins sequences with it: read again, it is a call with a rule

from ..errors import handled_exception
from .contexts import unsuppressed
from .accumulate import accumulate, add_at, zeroed_at
from .methods import (attribute_jvp, attribute_rrule, differentiated_call_rrule, method_jvp, method_rrule, packed_jvp,
                      packed_rrule, receiver_left_alone, numpy_receiver, copy_receiver, constant_result)
from .structure import (a_slot_replaced, add_tangents, field_cotangent, inserted_at, item_cotangent, item_of, items_of, overwritten,
                        prefix_of, restore, split_cotangent, tangent_append, tangent_extend, tangent_field, tangent_filled,
                        tangent_item, tangent_without, tangent_setitem, written_item_of, insertion_index, removed_at,
                        tangent_insert)
from .exact_points import at_an_exact_point
from .initializers import initialized
from .tangents import NO_TANGENT, ZERO, unthunk

__all__ = ["ZERO", "NO_TANGENT", "accumulate", "add_at", "unthunk", "split_cotangent", "item_cotangent", "field_cotangent",
           "method_rrule", "attribute_rrule", "overwritten", "restore", "item_of", "written_item_of", "zeroed_at", "prefix_of",
           "items_of", "inserted_at", "add_tangents", "tangent_item", "tangent_field", "tangent_setitem", "tangent_append",
           "tangent_extend", "tangent_without", "tangent_filled", "method_jvp", "attribute_jvp", "packed_rrule", "packed_jvp", "differentiated_call_rrule", "handled_exception",
           "unsuppressed", "concat", "insertion_index", "removed_at", "tangent_insert", "receiver_left_alone",
           "numpy_receiver", "copy_receiver", "constant_result", "initialized", "a_slot_replaced", "at_an_exact_point"]
