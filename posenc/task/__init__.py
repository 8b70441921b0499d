"""The 谁咬谁 toy task: ``data`` (sentences), ``model`` (torch, loaded lazily), ``training``,
``evaluation`` and ``experiments``."""
