package grant

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/folio-cms/folio/media"
)

// MigratedSuffix is appended to a grants file's name once Migrate copied
// it into a state store.
const MigratedSuffix = ".migrated"

// Migrate copies every grant of the grants file at path into state, for a
// service that moves from a file store to a state store, and returns how
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
