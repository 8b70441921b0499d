"""Figures: ``style`` (fonts, the course's look, axes), then one module per figure family holding
its view, its ``plot_*`` and its explorer; the explorers run on the engine in ``posenc.ui.engine``."""
