"""The shared-app machinery every visitor's events run on; it imports nothing from `state`, `shared`, `tabs` or `app`."""
