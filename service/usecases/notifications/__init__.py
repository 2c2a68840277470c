"""Notifications: what a notice says, the channels it goes out by, where a target may connect,
and quiet hours. The jobs that send them and the feed follower are in workers/notifications/."""
