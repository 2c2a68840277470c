"""The runtime: settings, the composition root, the launcher, the embedded Redis, the CLI, logs,
the signing keys and the SMTP servers of boardlog's own."""
