"""Mnemo's desktop window (PySide6): one client of the `assistant` library."""
