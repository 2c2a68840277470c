"""Notifications: the feed follower, what a notice says, the channels and the notify jobs."""
