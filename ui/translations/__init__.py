"""The window's translations: `<language>.json`, English text → translated text (package data)."""
