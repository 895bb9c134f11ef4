package gitsource

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// What Files resolves: the revisions a writer is given (a full hash, a
// short one, a branch), as git's rev-parse does for those forms.

// ErrUnknownRevision is a revision that names no object: a hash that is
// not in the repository, a short hash of none, a name that is no ref
// (git: "Not a valid object name", "unknown revision").
var ErrUnknownRevision = errors.New("gitsource: unknown revision")

// ErrAmbiguousRevision is a short hash that several objects start with
// (git: "short object ID … is ambiguous").
var ErrAmbiguousRevision = errors.New("gitsource: ambiguous short hash")

// minAbbrev is the shortest hash git takes for an object (MINIMUM_ABBREV).
const minAbbrev = 4

// Resolve is the object rev names, as a full hash: a full hash (as it
// is, as git takes it: whether the object exists is for the read that
// uses it), a ref named as git's rev-parse names one (HEAD, refs/…,
// then refs/tags/, refs/heads/, refs/remotes/ and refs/remotes/…/HEAD
// before it), else a short hash of at least four hex digits: that of
// the one object it starts; ErrAmbiguousRevision when several do,
// ErrUnknownRevision when none does. Other forms of git's revisions
// (main~1, main^{tree}, a:path, @{…}) are not read: ErrUnknownRevision.
func (f *Files) Resolve(rev string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h, err := f.resolve(rev)
	if err != nil {
		return "", err
	}
	return h.String(), nil
}

// Commit is the commit rev names (a tag peeled to it), as git rev-parse
// --verify rev^{commit}: an error when it names none, or an object that
// is not a commit.
func (f *Files) Commit(rev string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, err := f.commitOf(rev)
	if err != nil {
		return "", err
	}
	return c.Hash.String(), nil
}

// storage opens the repository's objects on the first read. Under f.mu.
func (f *Files) storage() {
	if f.st == nil {
		f.st = openObjectStorage(f.gitDir, cache.NewObjectLRU(filesCache))
	}
}

// resolve is Resolve under f.mu.
func (f *Files) resolve(rev string) (plumbing.Hash, error) {
	f.storage()
	if len(rev) == 40 && isHexFold(rev) {
		return plumbing.NewHash(strings.ToLower(rev)), nil
	}
	if h, ok, err := f.dwimRef(rev); err != nil || ok {
		return h, err
	}
	if len(rev) < minAbbrev || len(rev) > 40 || !isHexFold(rev) {
		return plumbing.ZeroHash, fmt.Errorf("%w: %q", ErrUnknownRevision, rev)
	}
	hs, err := f.withPrefix(strings.ToLower(rev))
	if err == nil && len(hs) == 0 {
		// A pack written since the packs were listed.
		f.st.Reindex()
		hs, err = f.withPrefix(strings.ToLower(rev))
	}
	switch {
	case err != nil:
		return plumbing.ZeroHash, err
	case len(hs) == 0:
		return plumbing.ZeroHash, fmt.Errorf("%w: %q", ErrUnknownRevision, rev)
	case len(hs) > 1:
		return plumbing.ZeroHash, fmt.Errorf("%w: %q names %d objects", ErrAmbiguousRevision, rev, len(hs))
	}
	return hs[0], nil
}

// dwimRef is the object the ref rev names, in git's order of the
// places a name is looked for (refs.c's ref_rev_parse_rules); false when
// it is no ref. Under f.mu.
func (f *Files) dwimRef(rev string) (plumbing.Hash, bool, error) {
	var names []string
	switch {
	case rev == "HEAD":
		names = []string{"HEAD"}
	case CheckRefName(rev) != nil:
		return plumbing.ZeroHash, false, nil
	default:
		names = []string{"refs/" + rev, "refs/tags/" + rev, "refs/heads/" + rev, "refs/remotes/" + rev, "refs/remotes/" + rev + "/HEAD"}
		if strings.HasPrefix(rev, "refs/") {
			names = append([]string{rev}, names...)
		}
	}
	for _, n := range names {
		h, ok, err := f.ref(plumbing.ReferenceName(n))
		if err != nil || ok {
			return h, ok, err
		}
	}
	return plumbing.ZeroHash, false, nil
}

// ref is the object the ref name points to, following symbolic refs;
// false when there is no such ref. Under f.mu.
func (f *Files) ref(name plumbing.ReferenceName) (plumbing.Hash, bool, error) {
	for range 8 {
		ref, err := f.st.Reference(name)
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			return plumbing.ZeroHash, false, nil
		}
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		if ref.Type() != plumbing.SymbolicReference {
			return ref.Hash(), true, nil
		}
		name = ref.Target()
	}
	return plumbing.ZeroHash, false, nil
}

// withPrefix are the objects (loose and packed) whose hash starts with
// the lowercase hex prefix. Under f.mu.
func (f *Files) withPrefix(prefix string) ([]plumbing.Hash, error) {
	b, err := hex.DecodeString(prefix[:len(prefix)/2*2])
	if err != nil {
		return nil, err
	}
	hs, err := f.st.HashesWithPrefix(b)
	if err != nil {
		return nil, err
	}
	out := hs[:0]
	for _, h := range hs {
		if strings.HasPrefix(h.String(), prefix) {
			out = append(out, h)
		}
	}
	return out, nil
}

func isHexFold(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// peel is the object h is once tags are followed to what they tag.
// Under f.mu.
func (f *Files) peel(h plumbing.Hash) (plumbing.EncodedObject, error) {
	for range 8 {
		o, err := f.object(h)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrUnknownRevision, h, err)
		}
		if o.Type() != plumbing.TagObject {
			return o, nil
		}
		tag, err := object.DecodeTag(f.st, o)
		if err != nil {
			return nil, err
		}
		h = tag.Target
	}
	return nil, fmt.Errorf("%w: %s: tags nested too deep", ErrUnknownRevision, h)
}

// commitOf is the commit rev names (a tag peeled to it). Under f.mu.
func (f *Files) commitOf(rev string) (*object.Commit, error) {
	h, err := f.resolve(rev)
	if err != nil {
		return nil, err
	}
	o, err := f.peel(h)
	if err != nil {
		return nil, err
	}
	if o.Type() != plumbing.CommitObject {
		return nil, fmt.Errorf("gitsource: %s is a %s, not a commit", rev, o.Type())
	}
	return object.DecodeCommit(f.st, o)
}
