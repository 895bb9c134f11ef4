package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/folio-cms/folio/server"
)

// signinFlags turn on editors' sign-in (docs/editors.md).
type signinFlags struct {
	secret, secretFile string
	secretsDir         string
	dev                bool
}

func (f *signinFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.secret, "session-secret", "", "signs editors' session cookies (at least 32 characters; the same on every box); set it as FOLIO_SESSION_SECRET, not on the command line. Empty (and no --session-secret-file): sign-in off")
	fs.StringVar(&f.secretFile, "session-secret-file", "", "a file holding the session secret (instead of --session-secret)")
	fs.StringVar(&f.secretsDir, "signin-secrets-dir", "", "a folder holding each sign-in provider's client secret in a file named by the provider's id (else FOLIO_SIGNIN_SECRET_<ID>)")
	fs.BoolVar(&f.dev, "signin-dev", false, "session cookies without Secure, for plain HTTP: only with --addr on 127.0.0.1")
}

// config reads the secret and checks --signin-dev against the address.
func (f *signinFlags) config(addr string) (server.SigninConfig, error) {
	secret := f.secret
	if f.secretFile != "" {
		if secret != "" {
			return server.SigninConfig{}, fmt.Errorf("give --session-secret or --session-secret-file, not both")
		}
		b, err := os.ReadFile(f.secretFile)
		if err != nil {
			return server.SigninConfig{}, fmt.Errorf("--session-secret-file: %w", err)
		}
		secret = strings.TrimSpace(string(b))
	}
	if secret == "" {
		if f.dev {
			return server.SigninConfig{}, fmt.Errorf("--signin-dev needs a session secret")
		}
		return server.SigninConfig{}, nil
	}
	if len(secret) < 32 {
		return server.SigninConfig{}, fmt.Errorf("the session secret must have at least 32 characters (e.g. openssl rand -base64 48)")
	}
	if f.dev {
		host, _, err := net.SplitHostPort(addr)
		if err != nil || net.ParseIP(host) == nil || !net.ParseIP(host).IsLoopback() {
			return server.SigninConfig{}, fmt.Errorf("--signin-dev serves session cookies over plain HTTP: only with --addr on 127.0.0.1, found %q", addr)
		}
	}
	dir := f.secretsDir
	return server.SigninConfig{Secret: []byte(secret), Dev: f.dev, ClientSecret: func(id string) string {
		if dir != "" {
			if b, err := os.ReadFile(filepath.Join(dir, id)); err == nil {
				return strings.TrimSpace(string(b))
			}
		}
		return os.Getenv("FOLIO_SIGNIN_SECRET_" + strings.ToUpper(strings.ReplaceAll(id, "-", "_")))
	}}, nil
}
