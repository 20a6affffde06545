"""Screens of the desk (queue, browser, help, dialogs; conflicts / context / stats)."""
