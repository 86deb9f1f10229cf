"""The games: kept in SQLite, acted on through the engine, viewed and streamed to every page."""
