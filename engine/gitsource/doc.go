// Package gitsource is folio's Git I/O: the repository a site is read
// from, local (watched) or remote (cloned into the cache dir, fetched
// with the git CLI through package gitauth), and everything read from
// it in process: refs with go-git, objects with readers of its own
// (commits, trees and blobs, loose or packed, deltas resolved: the
// pack's index finds them, and go-git's map of every offset to its
// object is never built; whole blobs straight from the packs; loose
// trees), the parsed-document cache with its binary
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
//     documents), OpenObjects (the objects the history index walks);
//   - another box's parse cache: SavedCache (the bytes to publish),
//     SharedKey (which caches a box can take), AdoptCache (take one
//     before the first Load).
//
// Files is the reader it offers the rest of folio, in process, of any
// repository directory: branch heads and lists, revisions (full and
// short hashes, refs), the files of a commit and blobs, ancestry and
// merge bases (git's walk), the paths two commits differ by, commit
// times. Every read of the write API (package engine/write, hence the
// Decap service) goes through it. What writes (hash-object,
// commit-tree, update-ref, push) stays with the git CLI in package
// engine/write.
//
// # The ref lock
//
// A Source has one lock over the refs of its repository, RefLock, and
// it is the only one: whoever else works on the repository's refs (the
// write API, package engine/write, with the git CLI) takes this one. Its
// rule:
//
//   - a fetch holds it while the git fetch runs (every Fetch does);
//   - whoever pushes to the remote holds it from the push until it has
//     set the clone's ref to what it pushed, so that a fetch that read
//     the remote's refs before the push cannot set the branch back, or
//     prune a branch the push made, after it;
//   - whoever reads a ref and acts on its absence holds it for the read
//     (the writer's head of a branch, read through Files): in the
//     middle of a fetch a ref can look absent, and a branch taken for
//     absent would be started anew.
//
// The Source's own reads of refs (Resolve, ResolveRef, Refs) do not take
// it: they hold the Source's internal lock, which every Fetch holds too,
// inside the RefLock (always taken first). Objects need no lock: one
// that was read never changes.
package gitsource
