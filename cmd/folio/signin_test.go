package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

func TestKeysOwnerExpires(t *testing.T) {
	t.Parallel()
	keys := filepath.Join(t.TempDir(), "keys.yaml")
	if _, _, err := runCLI(t, "keys", "create", "--keys", keys, "--name", "ana-laptop", "--scopes", "content:read", "--owner", "ana@example.com", "--expires", "720h"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI(t, "keys", "create", "--keys", keys, "--name", "ci", "--scopes", "content:read"); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCLI(t, "keys", "list", "--keys", keys)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "OWNER") || !strings.Contains(lines[0], "LAST USED") {
		t.Fatalf("list:\n%s", out)
	}
	f := strings.Fields(lines[1])
	want := time.Now().Add(720 * time.Hour).UTC().Format("2006-01-02")
	if f[0] != "ana-laptop" || f[5] != "ana@example.com" || !strings.HasPrefix(f[6], want) || f[7] != "never" {
		t.Fatalf("ana's key: %q", lines[1])
	}
	if f := strings.Fields(lines[2]); f[5] != "-" || f[6] != "never" {
		t.Fatalf("ci's key: %q", lines[2])
	}
	if _, _, err := runCLI(t, "keys", "create", "--keys", keys, "--name", "x", "--scopes", "content:read", "--expires", "-1h"); err == nil {
		t.Fatal("a negative --expires was accepted")
	}
}
