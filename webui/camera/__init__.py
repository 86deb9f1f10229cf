"""The camera: photos and frames read into cards, each game's table, and table mode applying it."""
