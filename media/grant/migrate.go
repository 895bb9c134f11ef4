package grant

import (
	"context"
	"errors"
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"

	"github.com/folio-cms/folio/media"
)

// MigratedSuffix is appended to a grants file's name once Migrate copied
// it into a state store.
const MigratedSuffix = ".migrated"

// Migrate copies every grant of the grants file at path into state, for a
// service whose grants an earlier release kept in a file, and returns how
// many it created. A grant whose object exists already is left alone, so
// that a Migrate cut short can be run again, and a grant another box gave
// meanwhile is not overwritten. Then the file is renamed to
// path+MigratedSuffix, so that the next start does not copy it again and
// nothing is lost. A missing file migrates nothing. Grants past retention
// are copied too; the state store's Prune drops them.
func Migrate(ctx context.Context, path string, state media.StateStore) (n int, err error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	grants, err := readFile(path)
	if err != nil {
		return 0, err
	}
	for _, g := range grants {
		data, err := encode(&record{Grant: *g})
		if err != nil {
			return n, err
		}
		_, err = state.Create(ctx, objectKey(g.FullKey), data)
		switch {
		case errors.Is(err, media.ErrPrecondition):
		case err != nil:
			return n, fmt.Errorf("grant: migrate %s: %w", g.FullKey, err)
		default:
			n++
		}
	}
	if err := os.Rename(path, path+MigratedSuffix); err != nil {
		return n, fmt.Errorf("grant: migrate: %w", err)
	}
	return n, nil
}

// file is a grants file as releases before the state store wrote it.
type file struct {
	Grants []*Grant `yaml:"grants"`
}

// readFile reads the grants of a grants file; a missing file has none.
func readFile(path string) ([]*Grant, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("grant: %w", err)
	}
	var f file
	if err := yaml.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("grant: %s: %w", path, err)
	}
	for _, g := range f.Grants {
		if g == nil || g.FullKey == "" || g.Key == "" {
			return nil, fmt.Errorf("grant: %s: a grant without a key", path)
		}
	}
	return f.Grants, nil
}
