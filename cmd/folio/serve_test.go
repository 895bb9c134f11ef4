package main

import (
	"flag"
	"io"
	"slices"
	"testing"
)

func TestNotifyFlags(t *testing.T) {
	parse := func(args ...string) (urlList, error) {
		var l urlList
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Var(&l, "notify", "")
		err := parseFlags(fs, args)
		return l, err
	}
	l, err := parse("--notify", "http://127.0.0.1:1/a", "--notify", "https://127.0.0.1:2/b")
	if err != nil || !slices.Equal(l, urlList{"http://127.0.0.1:1/a", "https://127.0.0.1:2/b"}) {
		t.Fatalf("repeated flag: %v %v", l, err)
	}
	t.Setenv("FOLIO_NOTIFY", "http://127.0.0.1:1/a, http://127.0.0.1:3/c")
	if l, err := parse(); err != nil || !slices.Equal(l, urlList{"http://127.0.0.1:1/a", "http://127.0.0.1:3/c"}) {
		t.Fatalf("FOLIO_NOTIFY: %v %v", l, err)
	}
	if l, err := parse("--notify", "http://127.0.0.1:9/x"); err != nil || !slices.Equal(l, urlList{"http://127.0.0.1:9/x"}) {
		t.Fatalf("the flag wins over the environment: %v %v", l, err)
	}
	for _, bad := range []string{"ftp://127.0.0.1/", "127.0.0.1:8080", "http://"} {
		if _, err := parse("--notify", bad); err == nil {
			t.Errorf("--notify %q accepted", bad)
		}
	}
}
