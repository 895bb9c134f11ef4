package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSigninFlags(t *testing.T) {
	secret := strings.Repeat("s", 40)
	file := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(file, []byte(secret+"\n"), 0o600)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "google"), []byte("from-file\n"), 0o600)
	t.Setenv("FOLIO_SIGNIN_SECRET_MY_IDP", "from-env")

	f, err := parseServeFlags([]string{"--site", "x", "--session-secret-file", file, "--signin-secrets-dir", dir, "--signin-dev", "--addr", "127.0.0.1:8080"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	c := f.signinCfg
	if string(c.Secret) != secret || !c.Dev || c.ClientSecret("google") != "from-file" || c.ClientSecret("my-idp") != "from-env" || c.ClientSecret("none") != "" {
		t.Fatalf("config: %+v", c)
	}
	if f, err := parseServeFlags([]string{"--site", "x"}, io.Discard); err != nil || f.signinCfg.Secret != nil {
		t.Fatalf("without a secret sign-in must be off: %v %+v", err, f.signinCfg)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--site", "x", "--session-secret", "short"}, "at least 32"},
		{[]string{"--site", "x", "--session-secret", secret, "--signin-dev", "--addr", "0.0.0.0:8080"}, "127.0.0.1"},
		{[]string{"--site", "x", "--session-secret", secret, "--signin-dev", "--addr", ":8080"}, "127.0.0.1"},
		{[]string{"--site", "x", "--signin-dev", "--addr", "127.0.0.1:8080"}, "needs a session secret"},
		{[]string{"--site", "x", "--session-secret", secret, "--session-secret-file", file}, "not both"},
	} {
		if _, err := parseServeFlags(tc.args, io.Discard); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want one naming %s", tc.args, err, tc.want)
		}
	}
}
