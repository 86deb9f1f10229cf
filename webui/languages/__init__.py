"""Languages: the page's catalogs, each request's language, and refusals worded from codes."""
