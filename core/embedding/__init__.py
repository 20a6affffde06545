"""Sentence models shared by the parts of core that embed text (the search, the guard)."""
