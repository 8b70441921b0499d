"""Drills: functions the reader writes, one module per concept (named as the library's rooms),
each a :class:`~posenc.exercises.drill.Drill` declaration, its slips and its public
``check_drill_<name>(fn)``. The machinery that runs them is :mod:`posenc.exercises.drill`."""
