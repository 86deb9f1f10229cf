"""The table-side web companion: a Flask app over the rules engine, games kept in SQLite.

`create_app(config)` builds the app; `cribcam serve` runs it on cheroot (HTTP, or HTTPS with
`--lan`). Only the command line (`cribcam serve`), the tests and the benchmarks import it.

Its rooms, each a subpackage: `games/` (the store, actions, views and live updates), `camera/`
(photos, frames, each game's table and table mode), `decks/` (teaching a deck), `guard/` (what
the server lets in) and `languages/` (catalogs and refusals); on top, `app.py` wires them into
the app, `pages.py` serves the HTML pages and `errors.py` answers every failure as JSON.
"""

from webui.app import create_app

__all__ = ["create_app"]
