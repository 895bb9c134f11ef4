package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

// parseFlags parses args into fs, then fills every flag not given on the
// command line from the environment variable FOLIO_<FLAG> (upper case,
// dashes as underscores), so the same settings work in a unit file or a
// container.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return flagsFromEnv(fs)
}

// flagsFromEnv sets every flag of fs that the command line did not give
// from its environment variable FOLIO_<FLAG>, if set.
func flagsFromEnv(fs *flag.FlagSet) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] || err != nil {
			return
		}
		env := "FOLIO_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v, ok := os.LookupEnv(env); ok {
			if e := fs.Set(f.Name, v); e != nil {
				err = fmt.Errorf("%s: %w", env, e)
			}
		}
	})
	return err
}
