"""Exercises: ``verdict`` (the answer type, the one precision rule and the one pipeline every
check runs: read → refuse → agree → slips → wrong), then the ``check_*`` helpers grouped by the
concept they check, each a right answer and a table of slips handed to ``verdict.grade``."""
