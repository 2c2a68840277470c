"""Events: what is stored and how, in three parts by role.

- `events.records`: pure mapping between events and stored bytes (envelope, canonical codec,
  hash chain, export record). No I/O.
- `events.domain`: the platform's own domain around a game (the match fold, platform events,
  the offline audit, the clock the envelopes are stamped with). No Redis.
- `events.store`: the Redis adapter (the event store, key layout, Lua scripts, the raw
  wire protocol, the match cache). The only package here that imports redis.
"""
