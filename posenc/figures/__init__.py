"""Figures: ``style`` (fonts, the course's look, axes), ``explorer`` (the slider machinery),
then one module per figure family holding its view, its ``plot_*`` and its explorer."""
