"""Rules for ``with manager as name``: what the generated code calls to bind ``name``.

``with manager as name:`` is written ``entry = entering(manager)``, ``with entry:``,
``name = entered_value(entry)``. The value a manager gives (an error state, an open file, a
constant) is not differentiated: when the manager is made from a differentiated value, so
that its value may carry a derivative, the derivative is refused where one reaches it, with
the user's ``with`` line named, rather than given as 0. ``entered_value`` passes its cotangent
and tangent on to the entry, where ``entering`` refuses them.
"""
from s2sad.registry import defvjp
from s2sad.registry.forward import defjvp

from .helpers import entered_value, entering
from .refusals import defrefused

defrefused(entering, "manager", ("manager",),
           "the value `with ... as name` binds, from a context manager made from a differentiated value",
           "compute that value inside the `with` block, from the differentiated values themselves")
defvjp(entered_value, "entry", "g")
defjvp(entered_value, "g")
