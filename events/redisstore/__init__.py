"""The Redis adapter: the event store, its key layout, Lua scripts, the wire protocol, the match cache."""
