"""The agents' own memory files (CLAUDE.md, AGENTS.md, auto memory ...), managed whole.

`adopt` takes a file over as the confirmed baseline without rewriting it; `sync` keeps it
and the store in step (the gate on what agents add); `render` turns a file's manifest and
its entries back into bytes; `limits` and `status` say what each agent loads; `formats`
is the table of formats, one module each. See docs/memory-files.md.
"""
