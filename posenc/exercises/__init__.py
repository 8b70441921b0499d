"""Exercises: ``verdict`` (the answer type and the generic checks), then the ``check_*``
helpers grouped by the concept they check."""
