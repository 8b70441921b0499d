"""The course as data: the notebooks' titles and the exercises each one asks, read from the
notebooks themselves (:mod:`posenc.course.notebooks`), the quiz's question banks
(:mod:`posenc.course.quiz_banks`) and the learner's progress record
(:mod:`posenc.course.progress`). No widgets here.
"""
