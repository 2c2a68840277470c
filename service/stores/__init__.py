"""The stores of the state that is not events: players and their sessions, notification targets
and the notifier's marks, open tables, vacations, rate limits. Each is a Redis adapter, as the event
store is, named for the feature it serves."""
