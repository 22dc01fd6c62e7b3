"""Live delivery: the hub that wakes streams and long-polls on each commit, the commits
they share, Server-Sent Events streams and long-polls."""
