"""What the platform does, by feature: each module takes the stores it uses and raises its own
errors; the API maps those to statuses in one place."""
