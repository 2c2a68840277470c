"""The pure rules core: one package per game, no I/O."""
