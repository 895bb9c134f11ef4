package server

import (
	"strings"
	"testing"
	"time"
)

// FuzzPreviewToken: any string given as ?preview= is refused or accepted
// without a panic; only a token this server signed is accepted, and a
// changed byte of one never is.
func FuzzPreviewToken(f *testing.F) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	s := &contentHandlers{previewSecret: "fuzz-secret", now: func() time.Time { return now }}
	good := s.signPreview(previewClaims{Ref: "feature/x", Expires: now.Add(time.Hour).Unix(), Key: "k"})
	f.Add(good)
	f.Add("")
	f.Add(".")
	f.Add("e30.")
	f.Add(strings.Repeat("A", 2000))
	f.Add(good[:len(good)-1] + "A")
	f.Fuzz(func(t *testing.T, tok string) {
		c, err := s.verifyPreview(tok)
		if err != nil {
			return
		}
		if tok != good || c.Ref != "feature/x" {
			t.Fatalf("accepted a token this server did not sign: %q → %+v", tok, c)
		}
	})
}
