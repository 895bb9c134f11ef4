package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/folio-cms/folio/server"
)

// plainID is a --name that is a key id as it is (the keys of old files:
// "marketing"); any other name is a display name.
var plainID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

func runKeys(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("keys: want create, list or revoke")
	}
	fs := flag.NewFlagSet("keys "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	keysPath := fs.String("keys", "keys.yaml", "the keys file")
	name := fs.String("name", "", `who the key is for, as commits name them ("Mira Hofer"); a name that is an id already (marketing) is the key's id`)
	id := fs.String("id", "", "the key's id (letters, digits, '.', '_', '-'); default: made from --name (mira-hofer)")
	email := fs.String("email", "", "the e-mail of the key's commits (default: folio serve's --write-author-email)")
	scopes := fs.String("scopes", "", "comma-separated scopes: "+strings.Join(server.AllScopes, ", "))
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	ks, err := server.OpenKeys(*keysPath)
	if err != nil {
		return err
	}
	switch args[0] {
	case "create":
		if *name == "" && *id == "" {
			return errors.New("keys create: --name is required")
		}
		var list []string
		for _, s := range strings.Split(*scopes, ",") {
			if s = strings.TrimSpace(s); s != "" {
				list = append(list, s)
			}
		}
		spec := server.KeySpec{ID: strings.TrimSpace(*id), DisplayName: strings.TrimSpace(*name), Email: strings.TrimSpace(*email), Scopes: list}
		if spec.ID == "" && plainID.MatchString(spec.DisplayName) {
			spec.ID, spec.DisplayName = spec.DisplayName, ""
		}
		if spec.ID == spec.DisplayName {
			spec.DisplayName = ""
		}
		secret, err := ks.CreateKey(spec)
		if err != nil {
			return fmt.Errorf("keys create: %w", err)
		}
		if spec.ID == "" {
			spec.ID = server.KeyID(spec.DisplayName)
		}
		who := spec.ID
		if spec.DisplayName != "" {
			who = fmt.Sprintf("%s (%s)", spec.ID, spec.DisplayName)
		}
		if spec.Email != "" {
			who += " <" + spec.Email + ">"
		}
		fmt.Fprintf(stderr, "created key %s with scopes %s; it is shown once:\n", who, strings.Join(list, ","))
		fmt.Fprintln(stdout, secret)
		return nil
	case "list":
		keys, err := ks.List()
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tEMAIL\tSCOPES\tCREATED")
		for _, k := range keys {
			email := k.Email
			if email == "" {
				email = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", k.Name, k.AuthorName(), email, strings.Join(k.Scopes, ","), k.CreatedAt.Format("2006-01-02T15:04:05Z"))
		}
		return tw.Flush()
	case "revoke":
		target := *id
		if target == "" {
			target = *name
		}
		if target == "" {
			return errors.New("keys revoke: --id or --name is required")
		}
		if err := ks.Revoke(target); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "revoked key %q\n", target)
		return nil
	}
	return fmt.Errorf("keys: unknown command %q: want create, list or revoke", args[0])
}
