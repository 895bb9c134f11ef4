package media

import (
	"context"
	"crypto/rand"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/folio-cms/folio/media/internal/objkey"
)

// An intent is written, durably, before a write that puts or deletes
// objects in storage, and removed once the sidecar tells the outcome. If
// the process dies in between, Open finds the intent and reads the
// outcome off the sidecar: when the sidecar of Key exists the item is
// whole (a create that committed, a delete that had not begun) and the
// objects stay; when it does not, the item does not exist, and every
// object listed that no item claims is deleted. That is what keeps
// storages that cannot be listed (S3) free of orphans, and it makes the
// rule one: the sidecar is the commit point of every write.
//
// A Replace intent (Regenerate) is written for an item that exists before
// and after: its sidecar names either the old objects or the new ones,
// and Open deletes every object listed that no item claims, whichever
// set that is.
type intent struct {
	Key     string   `yaml:"key"`
	Keys    []string `yaml:"keys"`
	Replace bool     `yaml:"replace,omitempty"`
}

const intentPrefix = "intent-"

func (l *Library) writeIntent(in intent) (name string, err error) {
	if l.sweeps || l.sh != nil {
		// Local storage under the media root: Open's sweep finds every
		// unclaimed file anyway, so the two fsyncs of an intent buy
		// nothing. A shared library's claims in the bucket are its intents.
		return "", nil
	}
	data, err := yaml.Marshal(&in)
	if err != nil {
		return "", err
	}
	name = filepath.Join(tmpDir, intentPrefix+rand.Text()+".yaml")
	if err := writeFileAtomic(l.root, name, data); err != nil {
		return "", fmt.Errorf("media: write intent: %w", err)
	}
	return name, nil
}

// dropIntent removes an intent whose write has reached its sidecar. No
// sync: an intent that survives a crash is harmless, Open settles it.
func (l *Library) dropIntent(name string) {
	if name != "" {
		l.root.Remove(name)
	}
}

// settleIntents applies the rule above to every intent left in .tmp, and
// removes every other temporary file there (uploads a crash interrupted).
func (l *Library) settleIntents(ctx context.Context) error {
	ents, err := fs.ReadDir(l.root.FS(), tmpDir)
	if err != nil {
		return fmt.Errorf("media: read %s: %w", tmpDir, err)
	}
next:
	for _, e := range ents {
		name := filepath.Join(tmpDir, e.Name())
		if !e.Type().IsRegular() {
			continue
		}
		if !strings.HasPrefix(e.Name(), intentPrefix) {
			l.root.Remove(name)
			continue
		}
		data, err := l.root.ReadFile(name)
		if err != nil {
			return fmt.Errorf("media: read intent: %w", err)
		}
		var in intent
		if err := yaml.Unmarshal(data, &in); err != nil {
			l.log.Error("media: corrupt intent removed", "file", name, "err", err)
			l.root.Remove(name)
			continue
		}
		// The sidecar file, not the index, tells: a sidecar that exists but
		// does not parse still protects its objects.
		_, err = l.root.Stat(sidecarPath(in.Key))
		settle := objkey.Check(in.Key) == nil && err != nil
		if in.Replace && objkey.Check(in.Key) == nil {
			// A sidecar that exists but did not load protects both sets.
			settle = err != nil || l.claimed[claimKey(in.Key)] != ""
		}
		if settle {
			for _, k := range in.Keys {
				if objkey.Check(k) != nil || l.claimed[claimKey(k)] != "" {
					continue
				}
				if err := l.cfg.Storage.Delete(ctx, k); err != nil {
					// Keep the intent, so the next start tries again.
					l.log.Error("media: leftover object not deleted", "key", k, "err", err)
					continue next
				}
				l.log.Warn("media: object of an interrupted write deleted", "key", k)
			}
		}
		l.root.Remove(name)
	}
	return nil
}

// cleanTmp removes the files left in .tmp by writes a crash interrupted
// (upload, confirm and regenerate temp files), as settleIntents does on
// local storage. The media root belongs to one writer: nothing else
// writes there while it opens.
func (l *Library) cleanTmp() {
	ents, err := fs.ReadDir(l.root.FS(), tmpDir)
	if err != nil {
		l.log.Warn("media: cannot read the temporary folder", "err", err)
		return
	}
	n := 0
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		if err := l.root.Remove(filepath.Join(tmpDir, e.Name())); err != nil {
			l.log.Warn("media: temporary file not removed", "file", e.Name(), "err", err)
			continue
		}
		n++
	}
	if n > 0 {
		l.log.Info("media: removed temporary files of interrupted writes", "files", n)
	}
}
