"""The implementation behind ``posenc_lib``: import ``posenc_lib``, not this package.

``posenc_lib.py`` (next to this folder) is the public map: its docstring says which room
holds what, and it re-exports every public name.
"""
__version__ = "1.0.0"
