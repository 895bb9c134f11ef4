package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeysDisplayName: --name takes a person's name ("Mira Hofer"), the
// key's id is made from it (or given with --id), --email is the key's
// own; list shows them, revoke takes the id or the name; a keys file of
// old keys (a name, no e-mail) still loads, and a hand-edited bad e-mail
// is an error with its line.
func TestKeysDisplayName(t *testing.T) {
	t.Parallel()
	keys := filepath.Join(t.TempDir(), "keys.yaml")
	old := "keys:\n  - name: marketing\n    hash: " + strings.Repeat("ab", 32) + "\n    scopes: [content:read]\n    createdAt: 2025-01-01T00:00:00Z\n"
	if err := os.WriteFile(keys, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := runCLI(t, "keys", "create", "--keys", keys, "--name", "Mira Hofer", "--email", "mira@example.com", "--scopes", "content:read,content:write")
	if err != nil {
		t.Fatalf("create --name \"Mira Hofer\": %v", err)
	}
	if !strings.Contains(stderr, "mira-hofer (Mira Hofer) <mira@example.com>") {
		t.Fatalf("create said: %s", stderr)
	}
	if _, _, err := runCLI(t, "keys", "create", "--keys", keys, "--name", "Mira Hofer", "--scopes", "content:read"); err == nil {
		t.Fatal("a second key of the id mira-hofer was accepted")
	}
	if _, _, err := runCLI(t, "keys", "create", "--keys", keys, "--id", "jo", "--name", "Jörg Øster", "--email", "jo@example.com", "--scopes", "content:read"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI(t, "keys", "create", "--keys", keys, "--name", "Eve", "--email", "Eve <eve@example.com>", "--scopes", "content:read"); err == nil {
		t.Fatal("an e-mail with a name was accepted")
	}
	out, _, err := runCLI(t, "keys", "list", "--keys", keys)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"marketing   marketing   -", "mira-hofer  Mira Hofer  mira@example.com", "jo          Jörg Øster  jo@example.com"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	if _, _, err := runCLI(t, "keys", "revoke", "--keys", keys, "--name", "Jörg Øster"); err != nil {
		t.Fatalf("revoke by name: %v", err)
	}
	if _, _, err := runCLI(t, "keys", "revoke", "--keys", keys, "--id", "mira-hofer"); err != nil {
		t.Fatalf("revoke by id: %v", err)
	}
	out, _, _ = runCLI(t, "keys", "list", "--keys", keys)
	if strings.Contains(out, "Mira") || strings.Contains(out, "jo@") || !strings.Contains(out, "marketing") {
		t.Fatalf("after revoking:\n%s", out)
	}
	bad := old + "    email: not an address\n"
	if err := os.WriteFile(keys, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI(t, "keys", "list", "--keys", keys); err == nil || !strings.Contains(err.Error(), ":6:") {
		t.Fatalf("a bad e-mail in the file: %v", err)
	}
}
