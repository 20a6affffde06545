"""Screens of the memdesk TUI, one module each."""
