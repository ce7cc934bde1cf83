"""Qt item models over the store's queries and over parsed JSON."""
