"""Chat models: the `ChatBackend` contract (`backend`), Ollama (`ollama_backend`), token estimates."""
