"""memdesk's command line: a thin layer over memdesk.core (and memdesk.tui for the app)."""
