"""The records, pure: envelope, canonical codec, hash chain, compact rows, export, archive
records, snapshots and signing; no I/O."""
