package server

import (
	"net/http/httptest"
	"testing"
)

func TestClientIP(t *testing.T) {
	t.Parallel()
	proxies, err := ParseProxies("10.0.0.0/8, 2001:db8::/32, 192.0.2.7")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, peer, xff, want string
		trusted               bool
		v6bits                int
	}{
		{"no proxies configured", "10.1.1.1:5000", "203.0.113.9", "10.1.1.1", false, 0},
		{"untrusted peer ignores the header", "198.51.100.1:5000", "203.0.113.9", "198.51.100.1", true, 0},
		{"trusted peer", "10.1.1.1:5000", "203.0.113.9", "203.0.113.9", true, 0},
		{"client-written hops are skipped", "10.1.1.1:5000", "1.2.3.4, 203.0.113.9, 10.2.2.2", "203.0.113.9", true, 0},
		{"single trusted address", "192.0.2.7:80", "203.0.113.5", "203.0.113.5", true, 0},
		{"v6 proxy", "[2001:db8::1]:443", "2001:db8::2, 2a00:1::5", "2a00:1::/64", true, 0},
		{"v6 client by its /64", "[2a00:1:2:3:4:5:6:7]:443", "", "2a00:1:2:3::/64", false, 0},
		{"v6 client by a /56", "[2a00:1:2:3:4:5:6:7]:443", "", "2a00:1:2::/56", false, 56},
		{"v6 client by its address", "[2a00:1:2:3:4:5:6:7]:443", "", "2a00:1:2:3:4:5:6:7", false, 128},
		{"v4-mapped v6 client", "[::ffff:203.0.113.9]:443", "", "203.0.113.9", false, 0},
		{"v6 client behind a proxy", "10.1.1.1:5000", "2a00:1:2:3:ffff::1", "2a00:1:2:3::/64", true, 0},
		{"garbage hop stops at the last trusted", "10.1.1.1:5000", "203.0.113.9, not-an-ip", "10.1.1.1", true, 0},
		{"only trusted hops", "10.1.1.1:5000", "10.3.3.3", "10.3.3.3", true, 0},
		{"no header", "10.1.1.1:5000", "", "10.1.1.1", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Server{v6Prefix: tc.v6bits}
			if tc.trusted {
				s.proxies = proxies
			}
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tc.peer
			if tc.xff != "" {
				r.Header.Set("X-Forwarded-For", tc.xff)
			}
			if got := s.clientIP(r); got != tc.want {
				t.Errorf("clientIP = %q, want %q", got, tc.want)
			}
		})
	}
	for _, bad := range []string{"10.0.0.0/33", "nope", "1.2.3.4/x"} {
		if _, err := ParseProxies(bad); err == nil {
			t.Errorf("ParseProxies(%q) accepted", bad)
		}
	}
}
