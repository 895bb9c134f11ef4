package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/folio-cms/folio/engine/gitauth"
)

// gitAuthFlags are the credentials of a remote --site (package gitauth),
// for serve, check and schema infer: the fetch and the writer's push use
// the same ones.
type gitAuthFlags struct {
	tokenFile, user, sshKey, knownHosts string
}

// gitTokenEnv holds the token of a remote site when --git-token-file
// does not name a file (a flag would show it in the process list).
const gitTokenEnv = "FOLIO_GIT_TOKEN"

func (g *gitAuthFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&g.tokenFile, "git-token-file", "", "a file holding the token (password) of an https remote --site, for fetch and push alike; default: the environment variable "+gitTokenEnv+", else the password of the --site URL, else git's credential helpers")
	fs.StringVar(&g.user, "git-user", "", "the user name given with the token (default: the --site URL's, else "+gitauth.DefaultUser+")")
	fs.StringVar(&g.sshKey, "ssh-key", "", "the private key file of an SSH remote --site (default: ssh's own: ~/.ssh, an agent, GIT_SSH_COMMAND)")
	fs.StringVar(&g.knownHosts, "ssh-known-hosts", "", "a known_hosts file holding the SSH remote's host key (default: ~/.ssh/known_hosts)")
}

// options reads the token (of the file, else of the environment).
func (g *gitAuthFlags) options() (gitauth.Options, error) {
	o := gitauth.Options{User: g.user, SSHKey: g.sshKey, KnownHosts: g.knownHosts, Token: os.Getenv(gitTokenEnv)}
	if g.tokenFile != "" {
		t, err := gitauth.ReadToken(g.tokenFile)
		if err != nil {
			return o, fmt.Errorf("--git-token-file: %w", err)
		}
		o.Token = t
	}
	return o, nil
}
