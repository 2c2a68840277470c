"""Pure mapping between events and stored bytes: envelope, canonical codec, hash chain, export."""
