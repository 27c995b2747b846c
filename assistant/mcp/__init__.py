"""Other apps using this profile's memory over the Model Context Protocol (`mnemo mcp`).

`consent.py` records what each client may do and every call it made; `gateway.py` is the
tools' logic over `Memories`; `server.py` exposes them with the `mcp` SDK; `local.py` serves
them on an owner-only Unix socket in the profile folder (the window, or the first `mnemo mcp`)
and bridges a later `mnemo mcp`'s stdio to it. No network listener, ever.
"""
