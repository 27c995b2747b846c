"""Memory evaluation: scenario files replayed through the memory pipeline and scored."""
