"""The first-run welcome: language, Ollama and a model, the embedding model, the vault's key,
and what Mnemo keeps. Skippable; Help → Welcome opens it again (a status-bar item opens the
page that fixes it)."""
