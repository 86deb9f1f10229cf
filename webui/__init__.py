"""The table-side web companion: a Flask app over the rules engine, games kept in SQLite.

`create_app(config)` builds the app; `cribcam serve` runs it on cheroot (HTTP, or HTTPS with
`--lan`). Nothing outside `webui/` imports this package.
"""

from webui.app import create_app

__all__ = ["create_app"]
