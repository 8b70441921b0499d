"""What a reader clicks and types, apart from the math: the widget engine every explorer runs on
(:mod:`posenc.ui.engine`), the look under it (:mod:`posenc.ui.look`: fonts, labels, axes), the self-check quiz
(:mod:`posenc.ui.quiz`), the hand-calculation worksheet (:mod:`posenc.ui.worksheet`), the
learner's progress display (:mod:`posenc.ui.progress`) and the notebooks' setup cell and
progress bar (:mod:`posenc.ui.notebook`).

The math rooms (``posenc/*.py``, ``posenc/task``, ``posenc/exercises``) import nothing from here.
"""
