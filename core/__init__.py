"""memdesk core: every behaviour of memdesk, with no UI imports (textual/rich never)."""
