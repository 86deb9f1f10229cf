"""Table mode: the camera follows the deal. The table's state, read and smoothed by `vision`,
becomes the game's next actions (`follow`), each checked by the rules engine and by what the
deal already holds (the deal prior), so that the players only confirm."""
