// Package gitsource is folio's Git I/O: the repository a site is read
// from, local (watched) or remote (cloned into the cache dir, fetched
// with the git CLI through package gitauth), and everything read from
// it in process: refs, trees and blobs with go-git plus readers of its
// own (whole blobs straight from the packs, loose trees, a pack index
// that follows fetches), the parsed-document cache with its binary
// codec, and the Updated times of the files. Package engine builds its
// snapshots and views from what a Source gives; it reads no Git itself.
//
// The surface the engine uses:
//
//   - open: OpenSource (open a local repository, or clone or reopen and
//     fetch a remote one; load the persisted parse cache), Close,
//     SaveCache, Stats;
//   - refs: DefaultBranch, Resolve (a branch), ResolveRef and Refs (the
//     branches, tags and commits a request may name: Ref, RefPatterns,
//     CheckRefName), RefLock;
//   - content: Load (every relevant file of a commit, parsed, as a Tree),
//     Paths (every path of a commit, for folio check), SiteRoot,
//     RepoPath, SitePath, RelevantInRepo;
//   - keeping current: Watch (a local repository's refs), Fetch and
//     LastFetch (a remote one), Remote, URL, GitDir, GitEnv, Redact;
//   - what lives beside it: CachePath, CacheKey and SiteID (the engine's
//     validation cache is named after the parse cache and belongs to the
//     same build and site), DocNames (the parse cache's names of its
//     documents), OpenObjects (the objects the history index walks).
//
// # The ref lock
//
// A Source has one lock over the refs of its repository, RefLock. Its
// rule: whoever moves a branch of a remote site's clone to follow the
// remote holds it from the moment it learns where the remote is until
// the clone's ref is set. Every Fetch holds it (around the git fetch, so
// a fetch that read the remote's refs before a push cannot set the branch
// back, or prune a branch the push made, after it); a writer that pushes
// (package engine/write) holds it from the push until it has set the
// clone's ref to what it pushed. Reads never take it: refs and objects
// are read through the Source's own repository handle, under its
// internal lock, and an object once read never changes. The RefLock is
// taken before that internal lock, never after.
package gitsource
