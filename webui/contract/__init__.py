"""The API as a contract: one pydantic model per request body and answer, checked before a
handler runs (`routes.contract`), and the OpenAPI 3.1 description made from the same models
(`openapi`), served at ``GET /api/openapi.json`` with a reference page at ``GET /api``."""
