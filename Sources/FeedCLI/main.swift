import FeedCore
print("feedcli")
