package engine

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine/gitsource"
)

// TestFetchTimeout: a remote that accepts the connection and then says
// nothing fails the fetch after FetchTimeout, instead of holding every
// later poll off (before, Fetch waited for ever).
func TestFetchTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := gitsource.OpenSource(ctx, gitsource.SourceConfig{Site: "http://" + ln.Addr().String() + "/site.git", CacheDir: t.TempDir(), FetchTimeout: 300 * time.Millisecond})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "no answer within") {
			t.Fatalf("OpenSource of a silent remote: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the fetch from a silent remote did not time out")
	}
}

// TestStatusLastFetch: a remote site's status tells when the last fetch
// succeeded; a local one's does not.
func TestStatusLastFetch(t *testing.T) {
	r := newSrcBareSite(t)
	r.Commit(time.Unix(1e9, 0), map[string]string{"pages/home.md": "---\ntitle: Home\nisHomepage: true\n---\nHi\n"})
	r.Push(false)
	before := time.Now().Add(-time.Second)
	for _, tc := range []struct {
		site   string
		remote bool
	}{{r.Bare, false}, {"file://" + r.Bare, true}} {
		e, err := Open(context.Background(), Config{Site: tc.site, CacheDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		st := e.Status()
		e.Close()
		if tc.remote != (st.LastFetch != nil) || st.LastFetch != nil && st.LastFetch.Before(before) {
			t.Errorf("%s: lastFetch %v", tc.site, st.LastFetch)
		}
	}
}
