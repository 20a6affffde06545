"""Screens of the memdesk TUI; each takes the store (and optional services) it shows."""
