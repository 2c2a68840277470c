"""The platform's own domain: the match around a game's state, platform events, the audit, the clock, names."""
