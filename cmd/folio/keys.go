package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/folio-cms/folio/server"
)

func runKeys(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("keys: want create, list or revoke")
	}
	fs := flag.NewFlagSet("keys "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	keysPath := fs.String("keys", "keys.yaml", "the keys file")
	name := fs.String("name", "", "the key's name")
	scopes := fs.String("scopes", "", "comma-separated scopes: "+strings.Join(server.AllScopes, ", "))
	owner := fs.String("owner", "", "create: the person the key belongs to (an e-mail)")
	expires := fs.Duration("expires", 0, "create: how long the key works (e.g. 2160h); 0: until revoked")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	ks, err := server.OpenKeys(*keysPath)
	if err != nil {
		return err
	}
	switch args[0] {
	case "create":
		if *name == "" {
			return errors.New("keys create: --name is required")
		}
		var list []string
		for _, s := range strings.Split(*scopes, ",") {
			if s = strings.TrimSpace(s); s != "" {
				list = append(list, s)
			}
		}
		if *expires < 0 {
			return errors.New("keys create: --expires must be positive")
		}
		secret, err := ks.Create(*name, list)
		if err != nil {
			return err
		}
		if *owner != "" || *expires > 0 {
			var until time.Time
			if *expires > 0 {
				until = time.Now().Add(*expires)
			}
			if err := ks.SetAccount(*name, *owner, until); err != nil {
				return err
			}
		}
		fmt.Fprintf(stderr, "created key %q with scopes %s; it is shown once:\n", *name, strings.Join(list, ","))
		fmt.Fprintln(stdout, secret)
		return nil
	case "list":
		keys, err := ks.List()
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tSCOPES\tCREATED\tOWNER\tEXPIRES\tLAST USED")
		for _, k := range keys {
			exp, used := "never", "never"
			if k.ExpiresAt != nil {
				exp = k.ExpiresAt.Format("2006-01-02T15:04:05Z")
			}
			if t := ks.LastUsed(k.Name); !t.IsZero() {
				used = t.Format("2006-01-02T15:04:05Z")
			}
			owner := k.Owner
			if owner == "" {
				owner = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", k.Name, strings.Join(k.Scopes, ","), k.CreatedAt.Format("2006-01-02T15:04:05Z"), owner, exp, used)
		}
		return tw.Flush()
	case "revoke":
		if *name == "" {
			return errors.New("keys revoke: --name is required")
		}
		if err := ks.Revoke(*name); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "revoked key %q\n", *name)
		return nil
	}
	return fmt.Errorf("keys: unknown command %q: want create, list or revoke", args[0])
}
