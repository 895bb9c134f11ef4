package transport

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Proxies are the addresses of the proxies and CDN edges in front of folio,
// whose X-Forwarded-For the per-IP rate limit believes.
type Proxies []netip.Prefix

// ParseProxies reads a comma-separated list of CIDR prefixes or addresses
// ("10.0.0.0/8, 2001:db8::/32, 192.0.2.7").
func ParseProxies(s string) (Proxies, error) {
	var out Proxies
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !strings.Contains(f, "/") {
			a, err := netip.ParseAddr(f)
			if err != nil {
				return nil, fmt.Errorf("trusted proxy %q: %w", f, err)
			}
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q: %w", f, err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// Trusts tells whether a is one of the proxies.
func (ps Proxies) Trusts(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// DefaultIPv6Prefix is the prefix length an IPv6 client is counted by: a
// /64 is one subscriber's network, in which a client may take a fresh
// address for every request.
const DefaultIPv6Prefix = 64

// ClientKey names the client at host (an address) for the per-IP rate
// limit and connection cap: an IPv4 address as it is, an IPv6 one by its
// prefix of bits bits (DefaultIPv6Prefix if 0).
func ClientKey(host string, bits int) string {
	if strings.IndexByte(host, ':') < 0 {
		return host
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	if bits <= 0 {
		bits = DefaultIPv6Prefix
	}
	if bits >= 128 {
		return a.String()
	}
	p, err := a.Prefix(bits)
	if err != nil {
		return a.String()
	}
	return p.String()
}

// ClientIP names the client the per-IP rate limit counts (see ClientKey):
// the peer, or, when
// the peer is a trusted proxy, the nearest address in X-Forwarded-For that
// is not one. Entries a client wrote itself stand to the left of those its
// proxies appended, so they are never reached while a trusted hop remains;
// an untrusted peer's header is ignored.
func ClientIP(r *http.Request, proxies Proxies, v6Prefix int) string {
	return ClientKey(ClientAddr(r, proxies), v6Prefix)
}

// ClientAddr is the address of r's client (see ClientIP), before
// ClientKey groups IPv6 ones.
func ClientAddr(r *http.Request, proxies Proxies) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if len(proxies) == 0 {
		return host
	}
	peer, err := netip.ParseAddr(host)
	if err != nil || !proxies.Trusts(peer) {
		return host
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			// A malformed hop ends what can be believed: count the last
			// trusted address rather than anything a client invented.
			return host
		}
		if !proxies.Trusts(a) {
			return a.Unmap().String()
		}
		host = a.Unmap().String()
	}
	return host
}
