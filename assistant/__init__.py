"""Mnemo: a local-first assistant that remembers its user.

The package is a Qt-free library with a command line (`mnemo`); the desktop window in
``ui/`` is one client of it.
"""

__version__ = "0.1.0"
