"""Which network addresses a request to a base URL nobody vetted may reach: public ones only.

A server that sends requests wherever a visitor says can be made to reach what only it can reach:
its own loopback services, the private network behind it, the cloud's metadata address
(169.254.169.254). So a host named by someone the operator does not vouch for must resolve to
public addresses only, every one of them; and the connection itself goes to the address that was
checked, so a name that resolves elsewhere a moment later (DNS rebinding), or a redirect to a
private address, is refused as well.
"""

from __future__ import annotations

import ipaddress
import socket

# RFC 8215's local-use NAT64 prefix: where in it the IPv4 address sits is the network's choice, so
# none of it is taken as public.
NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")  # RFC 6052's well-known prefix: the IPv4 address is the last 32 bits
IPV4_TRANSLATED = ipaddress.IPv6Network("::ffff:0:0:0/96")  # RFC 2765 (SIIT)
IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")  # RFC 4291, deprecated; Linux still connects ::7f00:1 to 127.0.0.1


def is_public(address: str) -> bool:
    """Whether an IP address is on the public internet: not loopback, private, link-local, unspecified,
    shared (CGNAT), reserved or multicast (Python's list), nor an IPv6 address that is one of those in
    disguise: site-local (fec0::/10, deprecated but routed by some networks), or one that carries a
    non-public IPv4 address a gateway or the host's own stack would reach (`_embedded_ipv4`)."""
    ip = ipaddress.ip_address(address.partition("%")[0])  # an IPv6 zone ("fe80::1%eth0") is no part of the address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.is_site_local or ip in NAT64_LOCAL:
            return False
        if not all(is_public(str(inner)) for inner in _embedded_ipv4(ip)):
            return False
    return ip.is_global and not ip.is_multicast


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address stands for: IPv4-mapped, IPv4-compatible, IPv4-translated,
    NAT64, 6to4 (its gateway) and Teredo (its server and client)."""
    found = [inner for inner in (ip.ipv4_mapped, ip.sixtofour) if inner is not None]
    if ip.teredo is not None:
        found += list(ip.teredo)
    if any(ip in network for network in (NAT64, IPV4_TRANSLATED, IPV4_COMPATIBLE)):
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFF_FFFF))
    return found


def public_address(host: str, port: int) -> str | None:
    """The address to connect to for `host`: the first it resolves to, when all of them are public;
    None when any is not, or when the name does not resolve (one answer for both, so the server is no
    oracle for which private names exist)."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return None
    addresses = [str(info[4][0]) for info in found]
    return addresses[0] if addresses and all(is_public(a) for a in addresses) else None

