package gitsource

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/folio-cms/folio/content/fault"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Errors of ref resolution (Source.ResolveRef).
var (
	// ErrRefNotFound: no branch, tag or commit of that name (or one that
	// the served patterns exclude).
	ErrRefNotFound error = &fault.Error{Code: fault.RefNotFound, Message: "ref not found"}
	// ErrBadRef: the name is not a well-formed ref name.
	ErrBadRef error = &fault.Error{Code: fault.Invalid, Message: "malformed ref"}
)

// AmbiguousRefError is a short commit hash that more than one commit
// starts with.
type AmbiguousRefError struct {
	Ref        string
	Candidates int
}

func (e *AmbiguousRefError) Error() string {
	return fmt.Sprintf("ref %q is ambiguous: %d commits start with it; give more digits", e.Ref, e.Candidates)
}

// MaxRefName is the longest ref name accepted (git has no limit of its
// own; 255 is the usual file-name limit of a ref stored as a file).
const MaxRefName = 255

// minShortHash is the fewest hex digits a short commit hash may have, as
// git's own abbreviations.
const minShortHash = 4

// RefKind says what a ref name named.
type RefKind string

// The kinds of refs.
const (
	RefBranch RefKind = "branch"
	RefTag    RefKind = "tag"
	RefCommit RefKind = "commit"
)

// Ref is a branch, tag or commit and the commit it points to.
type Ref struct {
	Name   string    `json:"name"`
	Kind   RefKind   `json:"kind"`
	Commit string    `json:"commit"`
	Time   time.Time `json:"time"` // committer time of the commit, UTC
}

// Immutable tells whether the ref always names the same content: a full
// commit hash.
func (r Ref) Immutable() bool { return r.Kind == RefCommit && len(r.Name) == 40 }

// CheckRefName reports whether name is acceptable as a ref: a branch or
// tag name by git's rules (git check-ref-format, no "..", no control
// characters or the characters ~^:?*[\ and space, no component starting
// with a dot or ending with .lock, not ending in / or .), or a hex commit
// hash.
func CheckRefName(name string) error {
	if name == "" || len(name) > MaxRefName {
		return fmt.Errorf("%w: a ref is 1 to %d characters", ErrBadRef, MaxRefName)
	}
	if name == "@" || strings.Contains(name, "..") || strings.Contains(name, "@{") || strings.Contains(name, "//") {
		return fmt.Errorf("%w: %q", ErrBadRef, name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte(" ~^:?*[\\", c) >= 0 {
			return fmt.Errorf("%w: %q has a character refs cannot have", ErrBadRef, name)
		}
	}
	if strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".") || strings.HasPrefix(name, "-") {
		return fmt.Errorf("%w: %q", ErrBadRef, name)
	}
	for _, comp := range strings.Split(name, "/") {
		if strings.HasPrefix(comp, ".") || strings.HasSuffix(comp, ".lock") {
			return fmt.Errorf("%w: %q", ErrBadRef, name)
		}
	}
	return nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// RefPatterns bounds the refs that may be served (--refs). A pattern
// matches a branch or a tag by name ("release/*"), or only branches or only
// tags with the prefix "heads/" or "tags/" ("tags/v*"); * matches any run of
// characters, / included. The pattern "commits" allows commit hashes. No
// patterns: every ref.
type RefPatterns []string

// Allows reports whether the ref may be served.
func (p RefPatterns) Allows(kind RefKind, name string) bool {
	if len(p) == 0 {
		return true
	}
	for _, pat := range p {
		switch {
		case kind == RefCommit:
			if pat == "commits" || pat == "*" {
				return true
			}
		case strings.HasPrefix(pat, "heads/"):
			if kind == RefBranch && globMatch(strings.TrimPrefix(pat, "heads/"), name) {
				return true
			}
		case strings.HasPrefix(pat, "tags/"):
			if kind == RefTag && globMatch(strings.TrimPrefix(pat, "tags/"), name) {
				return true
			}
		case pat != "commits" && globMatch(pat, name):
			return true
		}
	}
	return false
}

// globMatch matches name against pattern, where * is any run of
// characters (/ included) and every other character stands for itself.
func globMatch(pattern, name string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == name
	}
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	name = name[len(parts[0]):]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(name, mid)
		if i < 0 {
			return false
		}
		name = name[i+len(mid):]
	}
	return strings.HasSuffix(name, parts[len(parts)-1])
}

// ResolveRef finds what a ref names: a branch first, then a tag, then a
// full or short commit hash (as git does). A short hash is looked up among
// the commits reachable from the branches and tags.
func (s *Source) ResolveRef(name string) (Ref, error) {
	if err := CheckRefName(name); err != nil {
		return Ref{}, err
	}
	if h, ok := s.looseOrPackedBranch(name); ok {
		if t, ok := s.commitTimes.get(h); ok {
			return Ref{Name: name, Kind: RefBranch, Commit: h.String(), Time: t}, nil
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ref, err := s.repo.Reference(plumbing.NewBranchReferenceName(name), true); err == nil {
		return s.refAt(RefBranch, name, ref.Hash())
	}
	if ref, err := s.repo.Reference(plumbing.NewTagReferenceName(name), true); err == nil {
		h, err := s.peel(ref.Hash())
		if err != nil {
			return Ref{}, err
		}
		return s.refAt(RefTag, name, h)
	}
	if len(name) < minShortHash || len(name) > 40 || !isHex(strings.ToLower(name)) {
		return Ref{}, fmt.Errorf("%w: no branch or tag %q", ErrRefNotFound, name)
	}
	name = strings.ToLower(name)
	if len(name) == 40 {
		c, err := s.commitObject(plumbing.NewHash(name))
		if err != nil {
			return Ref{}, fmt.Errorf("%w: no commit %s", ErrRefNotFound, name)
		}
		return Ref{Name: name, Kind: RefCommit, Commit: c.Hash.String(), Time: c.Committer.When.UTC()}, nil
	}
	hashes, err := s.reachableCommits()
	if err != nil {
		return Ref{}, err
	}
	i, _ := slices.BinarySearchFunc(hashes, name, func(h plumbing.Hash, prefix string) int {
		return strings.Compare(h.String()[:len(prefix)], prefix)
	})
	n := 0
	for j := i; j < len(hashes) && strings.HasPrefix(hashes[j].String(), name); j++ {
		n++
	}
	switch n {
	case 0:
		return Ref{}, fmt.Errorf("%w: no commit starts with %s", ErrRefNotFound, name)
	case 1:
		return s.refAt(RefCommit, name, hashes[i])
	}
	return Ref{}, &AmbiguousRefError{Ref: name, Candidates: n}
}

// peel follows annotated tags to the commit they name.
func (s *Source) peel(h plumbing.Hash) (plumbing.Hash, error) {
	for range 10 {
		o, err := s.encodedObject(h)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("%w: object %s missing", ErrRefNotFound, h)
		}
		if o.Type() != plumbing.TagObject {
			return h, nil
		}
		t, err := object.DecodeTag(s.objectsLocked(), o)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("%w: tag %s: %v", ErrRefNotFound, h, err)
		}
		if t.TargetType != plumbing.CommitObject && t.TargetType != plumbing.TagObject {
			return plumbing.ZeroHash, fmt.Errorf("%w: tag %s does not name a commit", ErrRefNotFound, t.Name)
		}
		h = t.Target
	}
	return plumbing.ZeroHash, fmt.Errorf("%w: tag chain too long", ErrRefNotFound)
}

// refAt reads the commit's time; under s.mu.
func (s *Source) refAt(kind RefKind, name string, h plumbing.Hash) (Ref, error) {
	if t, ok := s.commitTimes.get(h); ok {
		return Ref{Name: name, Kind: kind, Commit: h.String(), Time: t}, nil
	}
	c, err := s.commitObject(h)
	if err != nil {
		return Ref{}, fmt.Errorf("%w: %s %q points to a missing commit %s", ErrRefNotFound, kind, name, h)
	}
	t := c.Committer.When.UTC()
	s.commitTimes.put(h, t)
	return Ref{Name: name, Kind: kind, Commit: h.String(), Time: t}, nil
}

// looseOrPackedBranch reads a branch's commit straight from the
// repository's files (refs/heads/<name>, else packed-refs, re-read when it
// changes): a request on a branch costs a file read, not a go-git
// reference walk. ok is false when the branch is not there in either form
// (or is symbolic): the caller asks go-git.
func (s *Source) looseOrPackedBranch(name string) (plumbing.Hash, bool) {
	data, err := os.ReadFile(filepath.Join(s.gitDir, "refs", "heads", filepath.FromSlash(name)))
	if err == nil {
		line := strings.TrimSpace(string(data))
		if len(line) == 40 && isHex(line) {
			return plumbing.NewHash(line), true
		}
		return plumbing.ZeroHash, false
	}
	return s.packed.branch(filepath.Join(s.gitDir, "packed-refs"), name)
}

// packedRefs caches the branches of a packed-refs file, read again when
// its size or modification time changes.
type packedRefs struct {
	mu       sync.Mutex
	size     int64
	mod      time.Time
	branches map[string]plumbing.Hash
}

func (p *packedRefs) branch(path, name string) (plumbing.Hash, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return plumbing.ZeroHash, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.branches == nil || fi.Size() != p.size || !fi.ModTime().Equal(p.mod) {
		data, err := os.ReadFile(path)
		if err != nil {
			return plumbing.ZeroHash, false
		}
		m := map[string]plumbing.Hash{}
		for _, line := range strings.Split(string(data), "\n") {
			h, ref, ok := strings.Cut(line, " ")
			if !ok || len(h) != 40 || !isHex(h) {
				continue
			}
			if b, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
				m[b] = plumbing.NewHash(h)
			}
		}
		p.branches, p.size, p.mod = m, fi.Size(), fi.ModTime()
	}
	h, ok := p.branches[name]
	return h, ok
}

// commitTimeCache keeps the committer times of commits refs pointed to.
type commitTimeCache struct {
	mu sync.Mutex
	m  map[plumbing.Hash]time.Time
}

// maxCommitTimes bounds the cache; it is emptied when full.
const maxCommitTimes = 4096

func (c *commitTimeCache) get(h plumbing.Hash) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.m[h]
	return t, ok
}

func (c *commitTimeCache) put(h plumbing.Hash, t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCommitTimes {
		c.m = map[plumbing.Hash]time.Time{}
	}
	c.m[h] = t
}

// Refs lists the branches and tags, sorted by kind and name.
func (s *Source) Refs() ([]Ref, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, err := s.repo.References()
	if err != nil {
		return nil, fmt.Errorf("source: list refs: %w", err)
	}
	var out []Ref
	err = it.ForEach(func(r *plumbing.Reference) error {
		if r.Type() != plumbing.HashReference {
			return nil
		}
		var kind RefKind
		switch {
		case r.Name().IsBranch():
			kind = RefBranch
		case r.Name().IsTag():
			kind = RefTag
		default:
			return nil
		}
		h := r.Hash()
		if kind == RefTag {
			if h, err = s.peel(h); err != nil {
				return nil // a tag of a blob or tree: not servable
			}
		}
		ref, err := s.refAt(kind, r.Name().Short(), h)
		if err != nil {
			return nil // a dangling ref is not listed
		}
		out = append(out, ref)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("source: list refs: %w", err)
	}
	slices.SortFunc(out, func(a, b Ref) int {
		if a.Kind != b.Kind {
			return strings.Compare(string(a.Kind), string(b.Kind))
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, nil
}

// maxReachable bounds the commits kept for short-hash lookups.
const maxReachable = 200_000

// reachableCommits returns the hashes of the commits reachable from the
// branches and tags, sorted; cached until a ref moves. Under s.mu.
func (s *Source) reachableCommits() ([]plumbing.Hash, error) {
	it, err := s.repo.References()
	if err != nil {
		return nil, err
	}
	var tips []plumbing.Hash
	err = it.ForEach(func(r *plumbing.Reference) error {
		if r.Type() == plumbing.HashReference && (r.Name().IsBranch() || r.Name().IsTag()) {
			if h, err := s.peel(r.Hash()); err == nil {
				tips = append(tips, h)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing refs: %w", err)
	}
	slices.SortFunc(tips, func(a, b plumbing.Hash) int { return strings.Compare(a.String(), b.String()) })
	tips = slices.Compact(tips)
	var fp strings.Builder
	for _, h := range tips {
		fp.WriteString(h.String())
	}
	if s.reachable != nil && s.reachable.fingerprint == fp.String() {
		return s.reachable.hashes, nil
	}
	seen := map[plumbing.Hash]bool{}
	stack := slices.Clone(tips)
	for len(stack) > 0 && len(seen) < maxReachable {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[h] {
			continue
		}
		c, err := object.GetCommit(s.objectsLocked(), h)
		if err != nil {
			continue // a shallow or damaged history: what is there
		}
		seen[h] = true
		stack = append(stack, c.ParentHashes...)
	}
	hashes := make([]plumbing.Hash, 0, len(seen))
	for h := range seen {
		hashes = append(hashes, h)
	}
	slices.SortFunc(hashes, func(a, b plumbing.Hash) int { return strings.Compare(a.String(), b.String()) })
	s.reachable = &reachableSet{fingerprint: fp.String(), hashes: hashes}
	return hashes, nil
}

// reachableSet is the cached result of reachableCommits.
type reachableSet struct {
	fingerprint string
	hashes      []plumbing.Hash
}
