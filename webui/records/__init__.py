"""Players' records, head to head, and games to take away (export and import)."""
