package server

import (
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/server/transport"
)

// The transport's settings (server/transport), by the names Config and
// cmd/folio use.
type (
	// Proxies are the addresses of the proxies and CDN edges in front of
	// folio, whose X-Forwarded-For the per-IP rate limit believes.
	Proxies = transport.Proxies
	// RateLimit is a token bucket: PerSecond requests a second on
	// average, bursts of Burst. PerSecond 0 disables the limit.
	RateLimit = transport.RateLimit
)

// Defaults of Config's transport settings.
const (
	DefaultBodyTimeout = transport.DefaultBodyTimeout
	DefaultBodyMinRate = transport.DefaultBodyMinRate
	DefaultIPv6Prefix  = transport.DefaultIPv6Prefix
)

// ParseProxies reads a comma-separated list of CIDR prefixes or addresses
// ("10.0.0.0/8, 2001:db8::/32, 192.0.2.7").
func ParseProxies(s string) (Proxies, error) { return transport.ParseProxies(s) }

// clientIP names the client the per-IP rate limit counts
// (transport.ClientIP).
func (s *Server) clientIP(r *http.Request) string {
	return transport.ClientIP(r, s.proxies, s.v6Prefix)
}

func rateLimited(w http.ResponseWriter, wait time.Duration) error {
	secs := int(math.Ceil(wait.Seconds()))
	w.Header().Set("Retry-After", strconv.Itoa(max(1, secs)))
	return errorf(fault.TooMany, "too many requests: retry in %d s", max(1, secs))
}
