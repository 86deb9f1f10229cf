"""The server's guard: limits, hosts and origins, strict bodies and uploads, pairing and TLS."""
