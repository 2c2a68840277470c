"""Notifications' workers: the feed follower, the notify jobs, the dropped-queue notice and reply
to play. What a notice says and the channels are in service/usecases/notifications/."""
