"""Notifications: what a notice says, the channels it goes out by, where a target may connect,
quiet hours, the deployment's config of them, and the port the API sends through. The jobs that
send them, the feed follower and the port's implementation are in workers/notifications/."""
