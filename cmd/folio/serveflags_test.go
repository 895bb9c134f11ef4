package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

// parseServeFlags reads and checks the flags without starting anything.
func TestParseServeFlags(t *testing.T) {
	t.Parallel()
	f, err := parseServeFlags([]string{"--site", "/srv/site.git", "--poll", "5s", "--read-only"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if f.site != "/srv/site.git" || f.poll != 5*time.Second || !f.readOnly || !f.media.readOnly || f.branch != "" {
		t.Fatalf("flags %+v", f)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--site is required"},
		{[]string{"--site", "x", "--ipv6-prefix", "200"}, "--ipv6-prefix"},
		{[]string{"--site", "x", "--transform-concurrency", "0"}, "--transform-concurrency"},
		{[]string{"--site", "x", "--refs", "a..b"}, "--refs"},
		{[]string{"--site", "x", "extra"}, "unexpected argument"},
	} {
		if _, err := parseServeFlags(tc.args, io.Discard); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want one naming %s", tc.args, err, tc.want)
		}
	}
}
