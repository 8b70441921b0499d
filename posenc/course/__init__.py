"""The course as data: the notebooks' titles and the exercises each one asks, read from the
notebooks themselves (:mod:`posenc.course.notebooks`), the quiz's question banks
(:mod:`posenc.course.quiz_banks`), the learner's progress record
(:mod:`posenc.course.progress`) and where a reader first meets each public name
(:mod:`posenc.course.introduced`). No widgets here.
"""
