package write

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/folio-cms/folio/content/fault"
)

// FileBase is the version of a file an editor read and then saved whole
// (PutFile, Options.Read): what makes a save over a file someone changed
// meanwhile a merge or a refusal, never an overwrite.
type FileBase struct {
	// Blob is the file's blob the editor read; "" : the editor read no
	// file there (a new one).
	Blob string
	// Unknown: the editor did not say what it read. A file that exists
	// is then refused (412), not overwritten.
	Unknown bool
	// View is the file as the editor was shown it, when that is not the
	// file itself (Decap's single_file form of another form); nil: the
	// file. A file changed since Blob is merged only when View leaves
	// its current version as it is.
	View func(p string, data []byte) []byte
}

// readBase checks the file a whole-file save replaces (curBlob, "" for
// none) against what the editor read, and returns the file to write: data
// itself when the file is as the editor read it, else the editor's
// changes (the keys and body data changes relative to the version read)
// applied to the current file, when none of them touches a key (or the
// body) that was also changed since to another value; a Conflict naming
// them otherwise.
func (w *Writer) readBase(ctx context.Context, p string, b *FileBase, curBlob string, data []byte) ([]byte, error) {
	switch {
	case curBlob == b.Blob:
		return data, nil
	case b.Unknown && curBlob != "":
		return nil, fault.New(fault.PreconditionFailed, "%s exists and this save does not say which version of it it was made from: reload it and save again", p)
	case b.Unknown:
		return data, nil
	case b.Blob == "":
		return nil, fault.New(fault.Conflict, "%s was created by someone else since this entry was opened: reload it", p)
	case curBlob == "":
		return nil, fault.New(fault.Conflict, "%s was deleted by someone else since it was opened: reload it", p)
	}
	if !validBlob(b.Blob) {
		return nil, fault.New(fault.Invalid, "the version of %s this save was made from is not a blob id: %q", p, b.Blob)
	}
	baseData, err := w.repo.readBlob(ctx, b.Blob)
	if err != nil {
		return nil, fault.Wrap(fault.PreconditionFailed, err, "%s changed since it was opened, and the version it was opened at is not known here: reload it and save again", p)
	}
	curData, err := w.repo.readBlob(ctx, curBlob)
	if err != nil {
		return nil, err
	}
	if b.View != nil {
		baseData = b.View(p, baseData)
		if v := b.View(p, curData); string(v) != string(curData) {
			return nil, fault.New(fault.PreconditionFailed, "%s changed since it was opened: reload it and save again", p)
		}
	}
	return mergeFile(p, baseData, curData, data)
}

// mergeFile applies the changes from base to mine onto cur (see
// readBase).
func mergeFile(p string, base, cur, mine []byte) ([]byte, error) {
	refuse := func() ([]byte, error) {
		return nil, fault.New(fault.Conflict, "%s changed since it was opened and cannot be merged with this save: reload it and save again", p)
	}
	baseMeta, err1 := metaOf(p, base)
	curMeta, err2 := metaOf(p, cur)
	mineMeta, err3 := metaOf(p, mine)
	if err3 != nil {
		return nil, &ValidationError{[]FieldProblem{{"", problemMessage(err3)}}}
	}
	baseFile, err4 := splitFile(p, base, FormatYAML)
	curFile, err5 := splitFile(p, cur, FormatYAML)
	mineFile, err6 := splitFile(p, mine, FormatYAML)
	if err1 != nil || err2 != nil || err4 != nil || err5 != nil || err6 != nil {
		return refuse()
	}
	ch := change{set: map[string]any{}, remove: map[string]bool{}}
	var conflicts []string
	for _, k := range slices.Sorted(maps.Keys(mineMeta)) {
		v := mineMeta[k]
		if bv, ok := baseMeta[k]; ok && sameValue(bv, v) {
			continue
		}
		ch.set[k] = v
		ch.order = append(ch.order, k)
		if changedSince(baseMeta, curMeta, k) && !(hasKey(curMeta, k) && sameValue(curMeta[k], v)) {
			conflicts = append(conflicts, k)
		}
	}
	for k := range baseMeta {
		if hasKey(mineMeta, k) {
			continue
		}
		ch.remove[k] = true
		if changedSince(baseMeta, curMeta, k) && hasKey(curMeta, k) {
			conflicts = append(conflicts, k)
		}
	}
	if mb := string(mineFile.body); mb != string(baseFile.body) {
		ch.body = &mb
		if string(curFile.body) != string(baseFile.body) && string(curFile.body) != mb {
			conflicts = append(conflicts, "body")
		}
	}
	if len(conflicts) > 0 {
		slices.Sort(conflicts)
		return nil, fault.New(fault.Conflict, "%s changed since it was opened, in fields this save changes too (%s): reload it and save again", p, strings.Join(conflicts, ", "))
	}
	if len(ch.set) == 0 && len(ch.remove) == 0 && ch.body == nil {
		return cur, nil
	}
	if err := curFile.apply(ch); err != nil {
		return refuse()
	}
	out := curFile.bytes()
	if err := roundTrip(p, out, nil, ch); err != nil {
		return refuse()
	}
	return out, nil
}

// validBlob tells a Git object id (SHA-1 or SHA-256, in hex).
func validBlob(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

// StoreBlob stores data as a blob of the repository and returns its id:
// an editor that is told the id of what it saved can name that version
// as the one its next save is made from (FileBase.Blob), whether or not
// the file was written as it was given.
func (w *Writer) StoreBlob(ctx context.Context, data []byte) (string, error) {
	return w.repo.writeBlob(ctx, data)
}
