package gitsource

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/chunks"
	"github.com/folio-cms/folio/engine/gitauth"
)

// ErrUnknownBranch is returned by Source.Resolve for a branch the repository
// does not have.
var ErrUnknownBranch = errors.New("unknown branch")

// SourceConfig configures a Git source.
type SourceConfig struct {
	// Site is a local repository path (bare or with a work tree) or a remote
	// URL (https://, ssh://, user@host:path, file://).
	Site string
	// CacheDir holds remote clones (CacheDir/clones/<hash of URL>) and the
	// persisted parsed-document cache. Empty: no clone dir (remote sites
	// then fail) and no persisted cache.
	CacheDir string
	Logger   *slog.Logger

	// Parse and Relevant default to content.Parse (content.ParseLazy:
	// a body is read again from its blob when needed, never copied) and
	// content.Relevant.
	Parse    func(path string, data []byte) (*content.Doc, error)
	Relevant func(path string) bool
	// Workers parse cache misses in parallel; default runtime.NumCPU().
	Workers int
	// HistoryLimit caps the commits walked to find each path's last change;
	// default 1000. Paths not attributed within it get the oldest walked
	// commit's time.
	HistoryLimit int
	// CacheKey names the parser generation of the persisted cache: a cache
	// written under another key is ignored. Empty: derived from the running
	// executable (size and modification time), so a new build re-parses.
	CacheKey string
	// FetchTimeout bounds one fetch of a remote site, so that a remote
	// that stops answering mid-fetch cannot hold the next one off
	// forever. Default DefaultFetchTimeout.
	FetchTimeout time.Duration
	// Root is the site root, a folder of the repository every path is
	// read below (content.CleanRoot); "": the root: of the repository's
	// folio.yaml, else the repository's root.
	Root string
	// GitAuth are the credentials of a remote site (package gitauth): a
	// token, an SSH key, else git's own configuration.
	GitAuth gitauth.Options
	// PackBlobsMin is the number of documents to parse from which a Load
	// reads whole blobs from the packs itself (see packBlobs): a cold
	// start, not a push. Default 256.
	PackBlobsMin int
	// LookupFirstMin is the number of files from which the first Load
	// (a start) looks its documents up on every core
	// (source_load_first.go). Default 16384; below 0: never.
	LookupFirstMin int
	// EncodeFirstMin is the number of documents to parse from which the
	// first Load (a start with no parse cache) holds them in the parse
	// cache's form while it parses, and makes them by decoding that
	// (source_load_encode.go). Default 16384; below 0: never.
	EncodeFirstMin int
}

// Source is a Git repository that content snapshots are loaded from. Its
// methods are safe for concurrent use; Loads run one at a time.
type Source struct {
	cfg    SourceConfig
	log    *slog.Logger
	remote bool
	auth   *gitauth.Auth // a remote site's credentials; nil for a local one
	gitDir string        // directory holding refs and objects
	cache  string        // persisted cache file; "" when none
	// buildKey is the parser generation another box of this build
	// names its shared cache with (SharedKey).
	buildKey string

	mu   sync.Mutex      // guards repo (refs reads and fetches) and objects
	repo *git.Repository // long-lived handle for refs and fetch
	// objects reads the objects repo's refs lead to (source_objects.go).
	objects *objectStore
	// refMu is held by a fetch and by a writer from a push until the
	// clone's ref follows it (RefLock).
	refMu sync.Mutex

	loadMu sync.Mutex // serialises Load
	saveMu sync.Mutex // serialises SaveCache

	// lineKeys are the keys of the lines of keys of the documents read
	// from the cache file (set by loadCache) or decoded by the first
	// Load (decodeFirst, which may add to the file's), not changed
	// after; set with docs.mu held.
	lineKeys *lineKeys
	docs     *docCache
	blobs    *blobReader // reads documents' bodies on demand
	loose    sync.Pool   // *looseTrees for LooseTree

	lastFetch atomic.Int64 // Unix nanoseconds of the last successful fetch; 0: none

	lastRoot *dirRec       // the root folder of the last Load; guarded by loadMu
	last     *lastLoad     // the files and documents of the last Load; guarded by loadMu
	pathsSeq atomic.Uint64 // the last Tree.PathsID given out
	// loadedTrees are the trees the last Load decoded, when it decoded
	// fewer than maxReadTrees (a push): LooseTree hands them out.
	loadedTrees atomic.Pointer[map[plumbing.Hash][]object.TreeEntry]

	rootCfg rootConfig // the root: of the last folio.yaml read; guarded by loadMu

	// contentDirs are the folders outside content/ the site's locales
	// read content from, as the last Load's configuration said (nil:
	// none); localeCfg are the files that was read from (guarded by
	// loadMu).
	contentDirs atomic.Pointer[[]string]
	// siteRoot is the site root of the last Load (SiteRoot).
	siteRoot  atomic.Pointer[string]
	localeCfg *[]gitFile

	reachable   *reachableSet // commits for short-hash lookups; guarded by mu
	packed      packedRefs    // the branches of packed-refs, for ResolveRef
	commitTimes commitTimeCache
}

// Tree is every content file of one commit, parsed.
type Tree struct {
	Commit string
	Time   time.Time                 // committer time of the commit, UTC
	Files  chunks.List[content.File] // relevant paths only, sorted by path
	// PathsID names the list of Files' paths: two Trees of one Source
	// with the same PathsID have the same paths, in the same order (a
	// push that only edited files keeps it), so what depends on the
	// paths alone need not be made again.
	PathsID uint64
	// Base and Changed, when Base is set: Files are those of the
	// Source's Load of commit Base (the one before this one) but for
	// the paths in Changed (in path order), which were added, deleted
	// or changed (another blob, or only another Updated time). A caller that keeps what it made of Base's files
	// need only look at those. Not set when the Load listed every file
	// (many changes, another site root, the locales' folders changed).
	Base    string
	Changed []string
}

const remoteFetchSpec = "+refs/heads/*:refs/heads/*"

// remoteTagSpec fetches tags too (force: a moved tag follows the remote),
// for ?ref= on a tag.
const remoteTagSpec = "+refs/tags/*:refs/tags/*"

// DefaultFetchTimeout is SourceConfig.FetchTimeout's default.
const DefaultFetchTimeout = 2 * time.Minute

// OpenSource opens a local repository, or clones (or reopens the clone of)
// a remote one and fetches it, and loads the persisted document cache.
func OpenSource(ctx context.Context, cfg SourceConfig) (*Source, error) {
	if cfg.Site == "" {
		return nil, errors.New("source: no site repository given")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Relevant == nil {
		cfg.Relevant = content.Relevant
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.NumCPU()
	}
	if cfg.HistoryLimit <= 0 {
		cfg.HistoryLimit = 1000
	}
	if cfg.FetchTimeout <= 0 {
		cfg.FetchTimeout = DefaultFetchTimeout
	}
	if cfg.PackBlobsMin <= 0 {
		cfg.PackBlobsMin = 256
	}
	if cfg.LookupFirstMin == 0 {
		cfg.LookupFirstMin = lookupFirstMin
	}
	if cfg.EncodeFirstMin == 0 {
		cfg.EncodeFirstMin = encodeFirstMin
	}
	buildKey := buildKeyOf(cfg.CacheKey)
	if cfg.CacheKey == "" {
		cfg.CacheKey = executableKey()
	}
	root, err := content.CleanRoot(cfg.Root)
	if err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	cfg.Root = root
	s := &Source{cfg: cfg, log: cfg.Logger, remote: isRemoteURL(cfg.Site), buildKey: buildKey}
	s.docs = newDocCache()
	if s.remote {
		if s.auth, err = gitauth.New(cfg.Site, cfg.GitAuth); err != nil {
			return nil, fmt.Errorf("source: %w", err)
		}
	}

	if s.remote {
		err = s.openRemote(ctx)
	} else {
		err = s.openLocal()
	}
	if err != nil {
		return nil, err
	}
	s.blobs = newBlobReader(s.gitDir)
	if cfg.CacheDir != "" {
		s.cache = filepath.Join(cfg.CacheDir, "parsed-"+shortHash(s.siteID())+".cache")
		s.removeStaleTemps()
		// The file is read while the first Load walks the commit's
		// trees: the document cache stays locked until it is, so
		// whatever uses it (the Load's lookups, Stats, a save) waits.
		s.docs.mu.Lock()
		go func() {
			defer s.docs.mu.Unlock()
			if err := s.loadCacheLocked(); err != nil && !errors.Is(err, os.ErrNotExist) {
				// A bad cache costs a cold parse, never an outage.
				s.log.Warn("source: ignoring parsed-document cache", "file", s.cache, "err", err)
			}
		}()
	}
	return s, nil
}

// isRemoteURL tells a URL (scheme://… or scp-like user@host:path) from a
// local path.
func isRemoteURL(site string) bool {
	if strings.Contains(site, "://") {
		return true
	}
	// scp-like: host:path with no slash before the colon, not a Windows drive.
	if i := strings.Index(site, ":"); i > 1 && !strings.Contains(site[:i], "/") {
		return true
	}
	return false
}

func (s *Source) siteID() string {
	id := s.gitDir
	if s.remote {
		id = s.auth.URL()
	}
	if s.cfg.Root != "" {
		id += "#root=" + s.cfg.Root // another site of the repository
	}
	return id
}

func shortHash(v string) string {
	h := sha256.Sum256([]byte(v))
	return hex.EncodeToString(h[:8])
}

func (s *Source) openLocal() error {
	path, err := filepath.Abs(s.cfg.Site)
	if err != nil {
		return fmt.Errorf("source: %w", err)
	}
	repo, err := git.PlainOpen(path)
	if err != nil {
		return fmt.Errorf("source: open %s: %w", path, err)
	}
	// A work tree keeps its repository in .git; only that is ever read, so
	// uncommitted edits in the work tree never reach a snapshot.
	s.gitDir = path
	if fi, err := os.Stat(filepath.Join(path, git.GitDirName)); err == nil && fi.IsDir() {
		s.gitDir = filepath.Join(path, git.GitDirName)
	} else if err == nil {
		return fmt.Errorf("source: %s: a .git file (linked work tree or submodule) is not supported; give the repository directory", path)
	}
	s.repo = repo
	return nil
}

func (s *Source) openRemote(ctx context.Context) error {
	if s.cfg.CacheDir == "" {
		return errors.New("source: a remote site needs a cache directory for its clone")
	}
	// The clone is named and configured by the URL without its password:
	// a token is never written to disk, and a new one finds the clone.
	s.gitDir = filepath.Join(s.cfg.CacheDir, "clones", shortHash(s.auth.URL()))
	repo, err := git.PlainOpen(s.gitDir)
	fresh := false
	switch {
	case errors.Is(err, git.ErrRepositoryNotExists):
		if err := os.MkdirAll(s.gitDir, 0o755); err != nil {
			return fmt.Errorf("source: %w", err)
		}
		repo, err = git.PlainInit(s.gitDir, true)
		if err != nil {
			return fmt.Errorf("source: init clone: %w", err)
		}
		fresh = true
	case err != nil:
		return fmt.Errorf("source: open clone %s: %w", s.gitDir, err)
	}
	// (Re)state the remote every time, so a clone dir always mirrors the
	// configured URL with branch refs that force pushes overwrite.
	_ = repo.DeleteRemote(git.DefaultRemoteName)
	_, err = repo.CreateRemote(&gitconfig.RemoteConfig{
		Name:  git.DefaultRemoteName,
		URLs:  []string{s.auth.URL()},
		Fetch: []gitconfig.RefSpec{remoteFetchSpec, remoteTagSpec},
	})
	if err != nil {
		return fmt.Errorf("source: configure remote: %w", err)
	}
	s.repo = repo
	if err := s.Fetch(ctx); err != nil {
		if fresh {
			_ = os.RemoveAll(s.gitDir)
			return err
		}
		// An existing clone still serves its last fetched state.
		s.log.Warn("source: fetch failed; serving the existing clone", "site", s.auth.URL(), "err", err)
	}
	return nil
}

// Remote tells whether the site is a remote URL (cloned into CacheDir).
func (s *Source) Remote() bool { return s.remote }

// GitDir is the directory holding the repository's refs and objects (the
// clone for a remote site).
func (s *Source) GitDir() string { return s.gitDir }

// Resolve returns the commit hash a branch points to. For a remote site that
// is the state of the last Fetch.
func (s *Source) Resolve(branch string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ref, err := s.repo.Reference(plumbing.NewBranchReferenceName(branch), true)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", fmt.Errorf("source: branch %q: %w", branch, ErrUnknownBranch)
	}
	if err != nil {
		return "", fmt.Errorf("source: branch %q: %w", branch, err)
	}
	return ref.Hash().String(), nil
}

// Fetch updates every branch of a remote site from its remote, force, and
// drops branches deleted there. For a local site it does nothing. It runs
// the git CLI, as the writer's push does (source_remote.go).
func (s *Source) Fetch(ctx context.Context) error {
	if !s.remote {
		return nil
	}
	s.refMu.Lock()
	defer s.refMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fetch(ctx); err != nil {
		return err
	}
	s.lastFetch.Store(time.Now().UnixNano())
	return nil
}

// RefLock is held by every Fetch. A writer that pushes to the remote and
// then sets the clone's ref takes it around both, so that a fetch which
// read the remote's refs before the push cannot set the branch back (or
// prune a branch the push made) after it.
func (s *Source) RefLock() sync.Locker { return &s.refMu }

// LastFetch is when a fetch of a remote site last succeeded; zero when
// none did (or the site is local).
func (s *Source) LastFetch() time.Time {
	if ns := s.lastFetch.Load(); ns != 0 {
		return time.Unix(0, ns).UTC()
	}
	return time.Time{}
}

// Close writes the parsed-document cache if it changed since the last
// save, and closes the files kept open to read bodies (a body read after
// Close opens them again).
func (s *Source) Close() error {
	err := s.saveCache(true)
	s.blobs.close()
	s.closeObjects()
	return err
}

// openStorage opens a fresh object store on the repository. Each Load and
// each of its workers gets its own: go-git's storage is not safe for
// concurrent use, and a fresh one sees packs written since the last Load.
// They share objects, the cache of delta bases (objectStore's, by pack
// offset), which is safe for concurrent use. It must be large: in a packed repository most
// blobs are deltas, and with a small cache each read resolves its delta
// chain again (10k files, 76 MB: 13 s with 8 MB, 0.5-0.9 s with 96 MB).
func (s *Source) openStorage(objects cache.Object) *objectStore {
	return openObjectStorage(s.gitDir, objects)
}

// openObjectStorage is go-git's object store of the repository at
// gitDir, but for the reads of objects, which are folio's own
// (objectStore).
func openObjectStorage(gitDir string, objects cache.Object) *objectStore {
	return &objectStore{Storage: openGoGitStorage(gitDir, objects), objs: newGitObjects(gitDir, objects)}
}

// openGoGitStorage is go-git's object store of the repository at gitDir.
func openGoGitStorage(gitDir string, objects cache.Object) *filesystem.Storage {
	return filesystem.NewStorageWithOptions(
		osfs.New(gitDir, osfs.WithBoundOS()),
		objects,
		filesystem.Options{KeepDescriptors: true, LargeObjectThreshold: content.MaxFileSize},
	)
}

// loadCacheSize bounds the object cache of one Load; it is dropped after.
const loadCacheSize = 128 * cache.MiByte

// executableKey identifies the running build, so a cache written by another
// build (maybe another parser) is not trusted: the file's name, size and
// time, and its Go build ID (a hash of the build) when it has one. Without
// the ID, two builds of one size whose times an image builder set alike
// (to the epoch, or SOURCE_DATE_EPOCH) had one key: the second trusted
// the first's documents.
func executableKey() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return "unknown"
	}
	key := fmt.Sprintf("%s:%d:%d", filepath.Base(exe), fi.Size(), fi.ModTime().UnixNano())
	if id := goBuildID(); id != "" {
		key += ":" + id
	}
	return key
}
