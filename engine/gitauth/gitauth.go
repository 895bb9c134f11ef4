// Package gitauth is the one credential story of a remote site: the
// credentials every git command that talks to the remote gets (the
// engine's fetch and the writer's push, both made with the git CLI), and
// the redaction that keeps them out of logs, errors and the status.
//
// A remote is reached with, in this order:
//   - a token (Options.Token: --git-token-file or FOLIO_GIT_TOKEN, or the
//     password of the --site URL, https://user:token@host/…), given to git
//     by a credential helper of folio's own that reads it from the git
//     command's environment: it is never on a command line, in the
//     clone's config or in a URL folio prints;
//   - an SSH key (Options.SSHKey: --ssh-key), with Options.KnownHosts
//     (--ssh-known-hosts) to check the server's host key;
//   - else git's own configuration: credential helpers,
//     ~/.git-credentials, SSH agents and ~/.ssh, GIT_SSH_COMMAND.
package gitauth

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
)

// Options are the credentials of a remote as configured.
type Options struct {
	// Token is the password (a personal access token, a deploy token) of
	// an HTTP(S) remote; "" : none configured.
	Token string
	// User is the user name given with Token when the URL names none;
	// default DefaultUser.
	User string
	// SSHKey is the path of a private key for an SSH remote.
	SSHKey string
	// KnownHosts is the path of a known_hosts file holding the SSH
	// server's host key (default: ssh's own, ~/.ssh/known_hosts).
	KnownHosts string
}

// DefaultUser is the user name given with a token when the URL names
// none: hosts that take a token as the password take any user name.
const DefaultUser = "x-access-token"

// Auth is the credentials of one remote.
type Auth struct {
	url        string // the remote's URL, without a password
	user       string
	token      string
	sshKey     string
	knownHosts string
}

// New is the credentials of the remote site (a URL, or scp-like
// user@host:path): the password of the URL, if any, is taken out of it
// (Auth.URL) and is the token unless o.Token is set.
func New(site string, o Options) (*Auth, error) {
	a := &Auth{url: site, user: o.User, token: strings.TrimSpace(o.Token), sshKey: o.SSHKey, knownHosts: o.KnownHosts}
	if u, err := url.Parse(site); err == nil && u.User != nil && strings.Contains(site, "://") {
		if a.user == "" {
			a.user = u.User.Username()
		}
		if pass, ok := u.User.Password(); ok {
			if a.token == "" {
				a.token = pass
			}
			u.User = url.User(u.User.Username())
			a.url = u.String()
		}
	}
	if a.user == "" {
		a.user = DefaultUser
	}
	if strings.ContainsAny(a.token, "\n\x00") || strings.ContainsAny(a.user, "\n\x00") {
		return nil, errors.New("git token: a token or user name cannot hold a line break")
	}
	for _, f := range []struct{ flag, path string }{{"--ssh-key", a.sshKey}, {"--ssh-known-hosts", a.knownHosts}} {
		if f.path == "" {
			continue
		}
		if _, err := os.Stat(f.path); err != nil {
			return nil, fmt.Errorf("%s: %w", f.flag, err)
		}
	}
	return a, nil
}

// ReadToken is the token of a --git-token-file: its content, without
// the line break it may end with.
func ReadToken(file string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	t := strings.TrimSpace(string(b))
	if t == "" {
		return "", fmt.Errorf("%s is empty", file)
	}
	return t, nil
}

// URL is the remote's URL without a password: the one the clone's
// config holds and that is printed.
func (a *Auth) URL() string {
	if a == nil {
		return ""
	}
	return a.url
}

// tokenEnv names the environment variables folio's credential helper
// reads (set only in the environment of the git commands folio runs).
const (
	tokenEnv = "FOLIO_GIT_HELPER_PASSWORD"
	userEnv  = "FOLIO_GIT_HELPER_USERNAME"
)

// helper is folio's credential helper: it answers git's "get" with the
// user name and the token of the command's environment, and ignores
// "store" and "erase". A user name in the URL is git's own and wins.
const helper = `!f() { test "$1" = get || exit 0; printf 'username=%s\npassword=%s\n' "$` + userEnv + `" "$` + tokenEnv + `"; }; f`

// Env is the environment every git command that talks to the remote
// runs with (added to the process's own): never a prompt, folio's
// credential helper in place of git's when a token is configured, and
// the SSH key and known hosts when configured.
func (a *Auth) Env() []string {
	env := []string{"GIT_TERMINAL_PROMPT=0", "GCM_INTERACTIVE=never"}
	if a == nil {
		return env
	}
	var cfg [][2]string
	if a.token != "" {
		// An empty credential.helper first clears the helpers git's
		// own configuration lists: the token configured is the one used.
		cfg = append(cfg, [2]string{"credential.helper", ""}, [2]string{"credential.helper", helper})
		env = append(env, tokenEnv+"="+a.token, userEnv+"="+a.user)
	}
	if len(cfg) > 0 {
		env = append(env, fmt.Sprintf("GIT_CONFIG_COUNT=%d", len(cfg)))
		for i, kv := range cfg {
			env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, kv[1]))
		}
	}
	if a.sshKey != "" || a.knownHosts != "" {
		ssh := "ssh -o BatchMode=yes"
		if a.sshKey != "" {
			ssh += " -o IdentitiesOnly=yes -i " + shellQuote(a.sshKey)
		}
		if a.knownHosts != "" {
			ssh += " -o StrictHostKeyChecking=yes -o UserKnownHostsFile=" + shellQuote(a.knownHosts)
		}
		env = append(env, "GIT_SSH_COMMAND="+ssh)
	}
	return env
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// userinfo is the user:password@ of a URL in a text.
var userinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^/\s:@'"]*):[^/\s@'"]*@`)

// Redact is s with no credential in it: the token (wherever it is) and
// the password of any URL are replaced by "***".
func (a *Auth) Redact(s string) string {
	if a != nil && len(a.token) >= 4 {
		s = strings.ReplaceAll(s, a.token, "***")
	}
	return RedactURLs(s)
}

// RedactURLs is s with the password of every URL in it replaced by "***"
// (https://bob:***@host/…).
func RedactURLs(s string) string {
	return userinfo.ReplaceAllString(s, "$1:***@")
}

// Error is err with its message redacted (nil for nil); errors.Is and
// errors.As still see err.
func (a *Auth) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := a.Redact(msg); red != msg {
		return &redacted{msg: red, err: err}
	}
	return err
}

type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.err }
