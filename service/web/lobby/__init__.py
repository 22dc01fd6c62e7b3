"""The lobby: public games waiting for players, listed, long-polled and streamed."""
