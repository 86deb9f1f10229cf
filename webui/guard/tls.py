"""A self-signed certificate for `--lan`: browsers allow the camera only in a secure context.

Generated offline with `cryptography` on first use and kept in the data directory, so phones
that accepted it once keep trusting it; renewed when it nears expiry or when this machine's
names or addresses are not all in it. The addresses are read from this machine's network
interfaces (`psutil`), so that a phone can reach the server by one (a host name often resolves
only to 127.0.0.1); finding them sends no traffic.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import socket
from pathlib import Path

import psutil
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

_VALID_DAYS = 825  # the longest validity Apple devices accept
_RENEW_BEFORE = datetime.timedelta(days=30)

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def interface_addresses() -> list[IPAddress]:
    """Every IPv4 and IPv6 address of this machine's network interfaces (read, not probed)."""
    found: list[IPAddress] = []
    for entries in psutil.net_if_addrs().values():
        for entry in entries:
            if entry.family not in (socket.AF_INET, socket.AF_INET6):
                continue
            try:
                found.append(ipaddress.ip_address(entry.address.split("%", 1)[0]))
            except ValueError:  # not an address after all: skip it
                continue
    return found


def lan_addresses() -> list[IPAddress]:
    """The addresses other devices on the network can reach this machine at, IPv4 first: no
    loopback, and no link-local ones (a browser cannot take an fe80:: address's zone)."""
    usable = {
        address
        for address in interface_addresses()
        if not (address.is_loopback or address.is_link_local or address.is_multicast
                or address.is_unspecified)
    }  # fmt: skip
    return sorted(usable, key=lambda address: (address.version, int(address)))


def local_names() -> tuple[list[str], list[IPAddress]]:
    """This machine's host names and addresses: the resolver's (offline) and the LAN's."""
    host = socket.gethostname()
    names = sorted({"localhost", host, socket.getfqdn()} - {""})
    addresses: set[IPAddress] = {ipaddress.ip_address("127.0.0.1"), *lan_addresses()}
    try:
        for info in socket.getaddrinfo(host, None):
            addresses.add(ipaddress.ip_address(info[4][0]))
    except OSError:
        pass
    return names, sorted(addresses, key=str)


def ensure_certificate(directory: Path, extra: list[str] | None = None) -> tuple[Path, Path]:
    """Paths of (cert.pem, key.pem) valid for this machine, generating them if needed."""
    directory.mkdir(parents=True, exist_ok=True)
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    names, addresses = local_names()
    for item in extra or []:
        try:
            addresses.append(ipaddress.ip_address(item))
        except ValueError:
            names.append(item)
    if cert_path.exists() and key_path.exists() and _still_good(cert_path, names, addresses):
        return cert_path, key_path
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "cribcam on " + names[0])])
    alt = [x509.DNSName(n) for n in names] + [x509.IPAddress(a) for a in addresses]
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=_VALID_DAYS))
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False
        )
        .sign(key, hashes.SHA256())
    )
    key_bytes = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(key_bytes)
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return cert_path, key_path


def fingerprint(cert_path: Path) -> str:
    """SHA-256 fingerprint, to compare with what the phone's browser shows."""
    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    return cert.fingerprint(hashes.SHA256()).hex(":").upper()


def _still_good(cert_path: Path, names: list[str], addresses: list[IPAddress]) -> bool:
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        alt = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (ValueError, x509.ExtensionNotFound):
        return False
    if cert.not_valid_after_utc - datetime.datetime.now(datetime.UTC) < _RENEW_BEFORE:
        return False
    have_names = set(alt.get_values_for_type(x509.DNSName))
    have_addresses = set(alt.get_values_for_type(x509.IPAddress))
    return set(names) <= have_names and set(addresses) <= have_addresses
