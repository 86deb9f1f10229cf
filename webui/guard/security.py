"""What other web pages and other names may do here: nothing.

- **Host.** A request must name the server as it really is (127.0.0.1, localhost, [::1], and
  with `--lan` this machine's LAN addresses and names): a page on `evil.example` whose name
  its owner rebinds to 127.0.0.1 gets 400, so it never reads a game or the camera.
- **Cross-site requests.** A browser names the page a request comes from (`Origin`,
  `Sec-Fetch-Site`): a request that changes something, or any API request, from another site
  is refused with 403. Tools (curl, scripts) send neither header and are served as before;
  JSON bodies must also say `Content-Type: application/json` (`webui.guard.bodies`), which no other
  site can send without the browser asking first.
- **Headers on every answer**: a content security policy that allows this origin only (the
  page loads nothing from elsewhere), no framing, no content sniffing, no referrer.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, Response, current_app, request

from webui.errors import ApiError
from webui.guard.tls import lan_addresses, local_names

#: Names every server answers to: it always listens on loopback too, or only there.
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
#: Methods that change nothing: another site may still not call the API with them, but a
#: page navigated to from elsewhere (a link, a bookmark) is served.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: `Sec-Fetch-Site` values of a request the page itself made, or the user typed.
OWN_SITE = frozenset({"same-origin", "none"})

#: The page's own scripts and styles only; camera frames and thumbnails are blob: and data:
#: images; the live stream and the API are this origin.
CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' blob: data:",
    "media-src 'self' blob:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])  # fmt: skip
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # no-referrer would make a form's Origin "null"
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(self), microphone=(), geolocation=()",
}


def server_names(host: str | None = None, lan: bool = False) -> frozenset[str]:
    """The host names a server bound to `host` answers to: loopback's always; the address or
    name it was bound to; and with `lan` (or bound to every interface) this machine's names
    (also as `NAME.local`, as phones find it by mDNS) and its LAN addresses."""
    names = set(LOOPBACK_NAMES)
    bound = (host or "").strip("[]").lower()
    every_interface = bound in ("", "0.0.0.0", "::")
    if bound and not every_interface:
        names.add(bound)
    if lan or every_interface:
        machine, addresses = local_names()
        names.update(name.lower() for name in machine)
        names.update(f"{name.lower()}.local" for name in machine if "." not in name)
        names.update(str(address) for address in [*addresses, *lan_addresses()])
        names.add(socket.gethostname().lower())
    return frozenset(names)


def host_name(host: str) -> str:
    """The name part of a `Host` header, lower case, without port, brackets or final dot.

    >>> host_name("LOCALHOST:8121"), host_name("[::1]:8121"), host_name("laptop.")
    ('localhost', '::1', 'laptop')
    """
    host = host.strip().lower()
    if host.startswith("["):
        name = host[1:].split("]", 1)[0]
    elif host.count(":") == 1:
        name = host.split(":", 1)[0]
    else:
        name = host
    return name.rstrip(".")


def allowed_hosts(config: Mapping[str, Any]) -> frozenset[str]:
    """`ALLOWED_HOSTS` when set (`cribcam serve` sets it from where it listens), else
    loopback's names, and this machine's too when other devices may pair."""
    given: Iterable[str] | None = config.get("ALLOWED_HOSTS")
    if given is not None:
        return frozenset(host_name(name) for name in given)
    return server_names(lan=config.get("PAIRING_CODE") is not None)


def _canonical(name: str) -> str:
    """An address in one spelling (`::0:1` is `::1`); a name as it is."""
    try:
        return str(ipaddress.ip_address(name))
    except ValueError:
        return name


def check_host(hosts: frozenset[str]) -> None:
    given = request.headers.get("Host", "")
    if _canonical(host_name(given)) not in hosts:
        raise ApiError(f"this server does not answer to the host name {given!r}: open it at "
                       "its own address", 400)  # fmt: skip


def check_site() -> None:
    """Refuse a browser's request from another site: one that changes something, or any
    API request that is not a top-level navigation."""
    site = request.headers.get("Sec-Fetch-Site")
    origin = request.headers.get("Origin")
    changes = request.method not in SAFE_METHODS
    if changes and origin is not None and not _same_origin(origin):
        raise ApiError(f"a request from another site ({origin}) cannot change anything here",
                       403)  # fmt: skip
    if site is None or site in OWN_SITE:
        return
    navigating = request.headers.get("Sec-Fetch-Mode") == "navigate"
    if changes or (request.path.startswith("/api/") and not navigating):
        raise ApiError(f"a request from another site ({site}) is refused here: use the "
                       "cribcam page itself", 403)  # fmt: skip


def _same_origin(origin: str) -> bool:
    """Whether `Origin` is this server as the request reached it (scheme, host and port)."""
    return _endpoint(origin) == _endpoint(f"{request.scheme}://{request.headers.get('Host', '')}")


def _endpoint(url: str) -> tuple[str, str, int | None]:
    """Scheme, host and port of a URL, the port filled in for http and https."""
    try:
        parts = urlsplit(url.strip().lower())
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:  # a port that is no number: matches nothing
        return ("", "", None)
    return parts.scheme, _canonical(parts.hostname or ""), port


def install(app: Flask) -> None:
    """Check every request's Host and site before anything else runs; add the headers."""
    hosts = frozenset(_canonical(name) for name in allowed_hosts(app.config))
    app.extensions["cribcam.hosts"] = hosts

    @app.before_request
    def refuse_other_hosts_and_sites() -> None:
        check_host(current_app.extensions["cribcam.hosts"])
        check_site()

    @app.after_request
    def security_headers(response: Response) -> Response:
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response
