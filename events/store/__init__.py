"""The event store's Redis adapter: the log's streams, its key layout (`layout.py`), Lua scripts,
the wire protocol, the match cache, the feeds, the command queue and what the API hears."""
