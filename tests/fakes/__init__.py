"""Real, light test doubles: a fake Ollama HTTP server (`tests.fakes.fake_ollama`)."""
