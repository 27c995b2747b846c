"""The memory manager: a lazily paged table of memories and the actions on them."""
