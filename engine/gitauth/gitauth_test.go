package gitauth

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestNewTakesThePasswordOutOfTheURL(t *testing.T) {
	a, err := New("https://bob:tok3n-secret@git.example/org/site.git", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a.URL() != "https://bob@git.example/org/site.git" {
		t.Errorf("URL %q", a.URL())
	}
	env := strings.Join(a.Env(), "\n")
	if !strings.Contains(env, tokenEnv+"=tok3n-secret") || !strings.Contains(env, userEnv+"=bob") || !strings.Contains(env, "GIT_CONFIG_VALUE_0=\n") {
		t.Errorf("env:\n%s", env)
	}
	// A configured token wins over the URL's.
	a, _ = New("https://bob:old@git.example/site.git", Options{Token: "new-token\n"})
	if a.token != "new-token" || a.user != "bob" {
		t.Errorf("token %q user %q", a.token, a.user)
	}
	a, _ = New("https://git.example/site.git", Options{Token: "t0ken"})
	if a.user != DefaultUser {
		t.Errorf("user %q", a.user)
	}
	if _, err := New("git@git.example:site.git", Options{SSHKey: "/nonexistent/key"}); err == nil || !strings.Contains(err.Error(), "--ssh-key") {
		t.Errorf("a missing key: %v", err)
	}
}

func TestRedact(t *testing.T) {
	a, _ := New("https://bob:tok3n-secret@git.example/site.git", Options{})
	for in, want := range map[string]string{
		"fetch https://bob:tok3n-secret@git.example/site.git: 401": "fetch https://bob:***@git.example/site.git: 401",
		"password tok3n-secret was refused":                        "password *** was refused",
		"ssh://git:pw@host:22/x and http://u:p@h/":                 "ssh://git:***@host:22/x and http://u:***@h/",
		"no credentials here: git@host:site.git":                   "no credentials here: git@host:site.git",
	} {
		if got := a.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
	base := errors.New("boom")
	err := a.Error(fmt.Errorf("fetch https://bob:tok3n-secret@h/: %w", base))
	if strings.Contains(err.Error(), "tok3n") || !errors.Is(err, base) {
		t.Errorf("Error: %v", err)
	}
	var none *Auth
	if none.Redact("http://a:b@c/") != "http://a:***@c/" || len(none.Env()) == 0 {
		t.Error("a nil Auth")
	}
}

// The credential helper gives git the token as it is (a shell's echo
// would read its backslashes), for the host of any URL, and git's own
// helpers are not asked.
func TestHelperGivesTheToken(t *testing.T) {
	token := `t\ok$en'"-n \c`
	a, err := New("https://git.example/site.git", Options{Token: token, User: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	global := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(global, []byte("[credential]\n\thelper = \"!f() { echo username=alice; echo password=from-git-config; }; f\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "credential", "fill")
	cmd.Env = append(os.Environ(), append([]string{"GIT_CONFIG_GLOBAL=" + global, "GIT_CONFIG_NOSYSTEM=1"}, a.Env()...)...)
	cmd.Stdin = strings.NewReader("protocol=https\nhost=git.example\npath=site.git\n\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git credential fill: %v %s", err, out)
	}
	if !strings.Contains(string(out), "username=bob\npassword="+token+"\n") {
		t.Errorf("git credential fill gave:\n%s", out)
	}
}
