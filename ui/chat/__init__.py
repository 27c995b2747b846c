"""The chat view: transcript, input, stop, sessions sidebar, "memories used" and notices."""
