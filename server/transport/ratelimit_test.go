package transport

import (
	"fmt"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// The table stays bounded under a spray of distinct clients, and a
// bucket's state (here: empty) survives turns of generations while its
// client keeps coming.
func TestLimiterBoundedUnderSpray(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1e9, 0)}
	l := NewLimiter(RateLimit{PerSecond: 5, Burst: 10}, clk.now)
	for range 10 {
		l.Allow("victim")
	}
	if ok, _ := l.Allow("victim"); ok {
		t.Fatal("11th request within a burst of 10 allowed")
	}
	for i := range 5 * maxBuckets {
		l.Allow(fmt.Sprintf("spray-%d", i))
		if i%1000 == 0 {
			clk.t = clk.t.Add(time.Microsecond)
			// The victim keeps asking, faster than its rate: still refused.
			if i%50000 == 0 {
				if ok, _ := l.Allow("victim"); ok {
					t.Fatalf("after %d other clients the victim's bucket was full again", i)
				}
			}
		}
		if n := l.size(); n > 2*maxBuckets {
			t.Fatalf("%d buckets after %d clients: unbounded", n, i+1)
		}
	}
	// Idle for two periods: everything is dropped at the next request.
	clk.t = clk.t.Add(time.Minute)
	l.Allow("late")
	if n := l.size(); n != 1 {
		t.Fatalf("%d buckets after a long idle time, want 1", n)
	}
	if ok, _ := l.Allow("victim"); !ok {
		t.Fatal("the victim's bucket did not fill again over a minute")
	}
}

// A client refused keeps its deficit across one turn of generations.
func TestLimiterKeepsStateAcrossTurns(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1e9, 0)}
	l := NewLimiter(RateLimit{PerSecond: 1, Burst: 2}, clk.now) // period 3 s
	l.Allow("a")
	l.Allow("a")
	clk.t = clk.t.Add(3100 * time.Millisecond) // a turn; 3.1 tokens refilled, capped at 2
	if ok, _ := l.Allow("a"); !ok {
		t.Fatal("refilled bucket refused")
	}
	if ok, _ := l.Allow("a"); !ok {
		t.Fatal("second token of a refilled bucket refused")
	}
	if ok, wait := l.Allow("a"); ok || wait <= 0 || wait > time.Second {
		t.Fatalf("empty bucket: ok %v wait %s", ok, wait)
	}
	clk.t = clk.t.Add(2900 * time.Millisecond) // another turn: "a" is in prev
	l.Allow("b")
	if ok, _ := l.Allow("a"); !ok {
		t.Fatal("a bucket taken over from the previous generation lost its refill")
	}
}

// BenchmarkLimiterSpray is the per-IP limit under a spray of distinct
// addresses (a fresh IPv6 address per request, each of another /64), with
// the table already holding 20,000 clients: each op is one new client.
// Before, past 10,000 buckets every new client swept the whole table.
func BenchmarkLimiterSpray(b *testing.B) {
	l := NewLimiter(RateLimit{PerSecond: 5, Burst: 10}, time.Now)
	keys := sprayKeys(1 << 20)
	for _, k := range keys[:20000] {
		l.Allow(k)
	}
	var next atomic.Int64
	next.Store(20000)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			l.Allow(keys[int(next.Add(1))&(len(keys)-1)])
		}
	})
}

// sprayKeys are the client names of n addresses, each of another /64.
func sprayKeys(n int) []string {
	base := netip.MustParseAddr("2001:db8::1").As16()
	keys := make([]string, n)
	for i := range keys {
		a := base
		a[4], a[5], a[6], a[7] = byte(i>>24), byte(i>>16), byte(i>>8), byte(i)
		keys[i] = netip.AddrFrom16(a).String()
	}
	return keys
}
