"""One package per tab; no tab imports another (what one tab hands another goes through `shared`)."""
