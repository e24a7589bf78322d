"""What a visitor may send and keep: request size, upload room, input caps, allowed endpoints, idle expiry, repeated events."""
