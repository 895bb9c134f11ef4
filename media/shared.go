package media

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/gob"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/folio-cms/folio/media/internal/guard"
	"github.com/folio-cms/folio/media/replica"
)

// A library keeps everything it knows in a StateStore (Config.State) so
// that any number of boxes can serve one bucket, and any of them can die:
// the media root on local disk only holds upload temporary files (and, on
// local storage, the files and <root>/.state, a StateStore in a directory:
// a library on one box is a shared library with one box, with one write
// path).
//
// Layout of the state area (keys relative to it):
//
//	items/<id>.yaml           one sidecar per item: the truth, and the
//	                          compare-and-swap point of its writes
//	folders.yaml              the explicitly created folders, with a version
//	claims/, log/, checkpoints/
//	                          the claims on storage keys, the change log and
//	                          its checkpoints: see package media/replica
//
// Every box applies the log in order (polling); the sidecars decide every
// race (If-Match), and the log carries their outcomes to the other boxes.
// A box that finds a gap in the log (its entries were compacted away)
// reloads from the newest checkpoint.
const (
	stateItems   = "items/"
	stateFolders = "folders.yaml"
)

// Defaults of the shared library's background work.
const (
	DefaultPollInterval = 500 * time.Millisecond
	// checkpointEvery is how many log entries a writer lets pass before it
	// writes a checkpoint; checkpointAge bounds how old the newest one
	// gets while entries keep coming.
	checkpointEvery = 1000
	checkpointAge   = 10 * time.Minute
	// checkpointQuiet is how long after its start a writer writes no
	// checkpoint of its own accord: a start without one (a generated or
	// migrated library) would otherwise write it at the first poll, while
	// the box is still getting ready (a tenth of the CPU of a 10k-item
	// start), where a few seconds later nothing waits for it. Close
	// writes one whenever it is due.
	checkpointQuiet = 10 * time.Second
	// logRetain keeps compacted log entries this long, so a box that is
	// polling behind a compaction still finds them.
	logRetain = 10 * time.Minute
	// casRetries bounds the compare-and-swap loops of one write.
	casRetries = 16
)

func itemStateKey(id string) string { return stateItems + id + ".yaml" }

// Log entry operations.
const (
	opPut     = "put"
	opDelete  = "delete"
	opFolders = "folders"
	// opRescan tells every box to re-read every sidecar: written after a
	// migration, whose items have no entries of their own.
	opRescan = "rescan"
)

// logEntry is one change, as its writer committed it.
type logEntry struct {
	Op   string
	Item *Item // opPut: the item as written; opDelete: the item deleted
	// Folders and FoldersVersion are the folder list as written (opFolders).
	Folders        []string
	FoldersVersion int
	// ETag is the tag of the sidecar the write left (opPut), so that
	// reconcile can tell which sidecars changed without reading them.
	ETag string
	At   time.Time
	// Box and Nonce identify the writer and the write, so that a writer
	// whose create was retried can recognise its own entry.
	Box, Nonce string
}

// foldersState is the folders.yaml document.
type foldersState struct {
	Version int      `yaml:"version"`
	Folders []string `yaml:"folders"`
}

// checkpointDoc is the whole library as of log entry Seq.
type checkpointDoc struct {
	Seq            int64
	Items          []Item
	Folders        []string
	FoldersVersion int
	Tombs          replica.Tombs
	// ETags are the tags of the items' sidecars, by id, where known.
	ETags map[string]string
	At    time.Time
}

// stateSync keeps a library's catalog in step with its StateStore: it
// loads it (a checkpoint, else every sidecar) and follows the change log
// (shared_log.go), writes checkpoints (shared_checkpoint.go), rescans
// (shared_rescan.go), reconciles and sweeps leftover claims
// (shared_sweep.go), and makes the library's writes to the state: claims,
// sidecars, the folder list, log entries (shared_write.go). It changes
// the catalog only by applying what the state says, and tells onChange.
//
// Locks. loopMu, held across the state store's reads, serialises the
// poller's work (tail, rescan, checkpoints). The position's lock (pos, a
// guard.Mutex: the position has no other way in) is taken after loopMu
// and before the catalog's: the position is reached only through at (the
// position alone), and locked and lockedRead (the position and the index
// together), which take the two in that order. Neither the position's
// lock nor the catalog's is held across a call to the state store, the
// storage or onChange; loopMu is. Library lists the whole order.
type stateSync struct {
	st  StateStore
	rep *replica.Replica
	box string
	cat *catalog
	// storage is where the sweeps delete what interrupted writes left.
	storage  Storage
	readOnly bool
	log      *slog.Logger
	now      func() time.Time
	// onChange is told of every change applied to the catalog, after its
	// locks are released (Library.changed).
	onChange func(it *Item, deleted bool)

	pos guard.Mutex[position]

	poll time.Duration
	stop chan struct{}
	// bg counts the background loops, follow and housekeep.
	bg sync.WaitGroup
	// loopMu serialises the poller's work with Sync.
	loopMu sync.Mutex
	// exclusive is true when this library is the only writer of its
	// state (soleWriterState): it sweeps at Open and checkpoints at Close.
	exclusive bool
	// entries encodes the log entries this library appends.
	entries entryEncoder
}

// position is where the index stands in the log, and what it knows of
// the state beyond its items; stateSync.pos guards it.
type position struct {
	// seq is the last log entry applied; appended the last one this
	// library appended.
	seq, appended int64
	// foldersVersion is the version of the folder list in the index.
	foldersVersion int
	// tombs are the ids deleted, with when.
	tombs replica.Tombs
	// etags are the tags of the sidecars the index holds, by id, where
	// known (from the log, a read or a write): reconcile reads only the
	// sidecars whose tag in a listing differs.
	etags map[string]string
	// checkpointSeq and checkpointAt describe the newest checkpoint known.
	checkpointSeq int64
	checkpointAt  time.Time
	// quietUntil is when maybeCheckpoint may first write (checkpointQuiet
	// after Open).
	quietUntil time.Time
}

// at runs fn with the position's lock held; fn takes no other lock.
func (s *stateSync) at(fn func(p *position)) { s.pos.Do(fn) }

// locked runs fn with the position's lock held, then the catalog's, for
// writing: the index and the position change together (an item and its
// sidecar's tag, a delete and its tombstone, the folders and their
// version), and no reader sees one without the other.
func (s *stateSync) locked(fn func(p *position, x *index)) {
	s.pos.Do(func(p *position) {
		s.cat.write(func(x *index) { fn(p, x) })
	})
}

// lockedRead is locked with the catalog's lock held for reading: a view
// of the index and its position as of one instant (a checkpoint).
func (s *stateSync) lockedRead(fn func(p *position, x *index)) {
	s.pos.Do(func(p *position) {
		s.cat.read(func(x *index) { fn(p, x) })
	})
}

func encodeGob(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// decodeSharedSidecar parses items/<id>.yaml and checks it as
// decodeSidecar checks a local one: its id is its name, its key a library
// key, its derivatives beside its original.
func decodeSharedSidecar(id string, data []byte) (*Item, error) {
	var it Item
	if err := unmarshalSidecar(data, &it); err != nil {
		return nil, err
	}
	if it.ID != id {
		return nil, fmt.Errorf("id %q does not match the sidecar's name %q", it.ID, id)
	}
	if err := checkEntryItem(&it); err != nil {
		return nil, err
	}
	return &it, nil
}

// checkEntryItem checks an item of the bucket (a sidecar, a log entry, a
// checkpoint) as a sidecar is checked.
func checkEntryItem(it *Item) error {
	if it == nil {
		return errors.New("no item")
	}
	if checkAdoptKey(it.Key) != nil {
		return fmt.Errorf("invalid key %q", it.Key)
	}
	return checkItem(it)
}

// open loads the catalog: the newest checkpoint, else every sidecar, then
// the log after it; the only writer then settles what a crash left
// (sweepAtOpen). It starts following the log.
func (s *stateSync) open(ctx context.Context) error {
	quiet := s.now().Add(checkpointQuiet)
	s.at(func(p *position) { p.quietUntil = quiet })
	// The only writer's start reconciles with a listing of every sidecar
	// (sweepAtOpen). Nothing writes a sidecar until Open returns (the
	// migration is done; no other process writes while this one holds
	// the writer lock, and when it does not hold it the listing goes
	// unused), so the listing runs beside the checkpoint's load instead of
	// after it: a directory read and a stat per sidecar on local disk.
	// Without a checkpoint the start reads every sidecar (rescan), and
	// that is the listing: one directory read and no stat in all.
	var pre *sidecarListing
	if _, ok := s.st.(soleWriterState); ok && !s.readOnly {
		if cps, err := s.rep.Checkpoints(ctx); err != nil || len(cps) > 0 {
			pre = s.listSidecarsAsync(ctx)
			defer pre.wait() // never left running past Open
		}
	}
	loaded, err := s.loadCheckpoint(ctx, 0)
	if err != nil {
		return err
	}
	if !loaded {
		listed, err := s.rescan(ctx)
		if err != nil {
			return err
		}
		if pre == nil {
			pre = listedAlready(listed)
		}
	}
	if err := s.tail(ctx); err != nil {
		return err
	}
	if ex, ok := s.st.(soleWriterState); ok && !s.readOnly && ex.SoleWriter() {
		s.exclusive = true
		// Its log entries are created without fsync (two of the six an
		// upload of one file made in the state). Why nothing answered is
		// lost when a crash of the machine loses them, or leaves them
		// empty or cut short (a crash of the process loses nothing: the
		// page cache survives it):
		//   - the sidecar is the commit point, created, swapped or
		//     removed with fsync of the file and its directory before the
		//     write is answered; an entry only repeats its outcome;
		//   - checkpoints are synced, so the entries a checkpoint covers
		//     do not matter, and the clean-shutdown mark follows one;
		//   - at the next start this writer reads the log after the
		//     checkpoint: a damaged entry does not decode and is skipped,
		//     a lost one in the middle is a gap, after which it reads
		//     every sidecar; then it reconciles (sweepAtOpen): every
		//     sidecar whose tag the index does not know, every item
		//     whose sidecar is gone and the folder list, and logs what it
		//     found, for the read-only boxes;
		//   - every process that could have read a lost entry died with
		//     the machine, so the place of a lost entry, taken again by
		//     the next append, was never seen by a reader.
		// Boxes that share a bucket keep every entry durable (the store
		// has no unsynced create): a reader there has nothing but the
		// log between reconciles.
		s.rep.SetUnsyncedLog()
		// Its claims are created with their names synced and their bytes
		// not (one fsync of the two of each). A claim matters only to a
		// start after a crash (the index keeps a living writer's names
		// apart; no other writer exists): its name says which key a write
		// was storing, and that start removes the objects of every claim
		// no item holds. After a crash of the machine a claim made just
		// before may be empty or cut short; its name still says the key
		// (in lower case): the sweep removes the objects that name stands
		// for, or keeps all of them when an item holds it
		// (unreadableClaim). A claim of an item whose sidecar does not
		// parse is kept by its content; one made seconds before a crash
		// belongs to a sidecar synced then, which parses.
		s.rep.SetNameSyncedClaims()
		clean, err := s.takeCleanMark(ctx)
		if err != nil {
			return err
		}
		if err := s.sweepAtOpen(ctx, !clean, pre); err != nil {
			return err
		}
		if !loaded {
			if err := s.recordRescan(ctx); err != nil {
				return err
			}
		}
	}
	s.bg.Go(s.follow)
	s.bg.Go(s.housekeepLoop)
	return nil
}

// recordRescan gives a library that has items and no log entry (its
// sidecars were written by a tool, cmd/folio-gen, or by hand) a place in
// the log: an opRescan entry, which is what the index now holds (the
// rescan this start made). Without one the position stays 0, Close has no
// entry to name a checkpoint by, and every start reads every sidecar.
//
// Why an entry rather than a checkpoint at 0: a checkpoint is the index
// as of a log entry, and the first one written for a sequence number is
// kept, on the premise that every box at that number holds the same
// index. Before the first entry that is false (the sidecars there change
// without the log), so a checkpoint at 0 would freeze one box's reading
// and hide later out-of-log sidecars from every box that loads it; an
// entry tells every box following the log to read them again, and a
// checkpoint at or after it covers it. Only the sole writer records it
// at its start: boxes sharing a bucket would each append one (and each
// rescan at every other's), and in a bucket the one writer of sidecars
// outside the log, the migration, appends its own rescan entry.
func (s *stateSync) recordRescan(ctx context.Context) error {
	var seq int64
	var n int
	s.lockedRead(func(p *position, x *index) { seq, n = p.seq, len(x.items) })
	if seq != 0 || n == 0 {
		return nil
	}
	data, err := encodeGob(&logEntry{Op: opRescan, At: s.now().UTC(), Box: s.box, Nonce: rand.Text()})
	if err != nil {
		return err
	}
	at, err := s.rep.Append(ctx, 1, data)
	if err != nil {
		return fmt.Errorf("media: recording the rescan of a library without a log: %w", err)
	}
	s.at(func(p *position) {
		if p.seq == at-1 {
			// The entry says "read every sidecar", which this start did.
			p.seq = at
		}
		p.appended = max(p.appended, at)
	})
	return nil
}

// tempCleaner is implemented by a storage that can remove the temporary
// files of puts a crash interrupted (media/local.Storage); the only
// writer calls it at its start.
type tempCleaner interface {
	CleanTemp(ctx context.Context) (removed int, err error)
}

// soleWriterState is implemented by a StateStore that can tell whether
// the library that asks is its only writer (media/local.State: the first
// library of the one process holding the directory's writer lock).
type soleWriterState interface{ SoleWriter() bool }

// sweepAtOpen is the start of the only writer of its state. The sidecars
// are reconciled with the index (items committed whose log entry a crash
// lost, sidecars edited by hand while it was stopped). After a crash (no
// clean-shutdown mark), whatever is claimed and not committed was left by
// a write the crash interrupted (no write of this process is in flight
// yet, and no other writer exists), so its objects and claims go now
// rather than after claimStale, and so do the storage's temporary files
// of interrupted stores. After a clean Close there can be neither (no
// write was in flight, and the start after the last crash removed that
// crash's), so the listing of every claim (about five an item) and the
// walk of every folder of the storage are skipped.
func (s *stateSync) sweepAtOpen(ctx context.Context, crashed bool, pre *sidecarListing) error {
	listed, err := pre.wait()
	if err == nil && listed == nil {
		listed, err = s.listSidecars(ctx)
	}
	if err != nil {
		return err
	}
	applied, err := s.reconcileListed(ctx, listed)
	if err != nil {
		return err
	}
	// What the log missed goes into it now, for the read-only boxes
	// that follow it (they reconcile only every reconcileEvery).
	for _, e := range applied {
		s.appendLog(ctx, e)
	}
	if !crashed {
		return nil
	}
	if tc, ok := s.storage.(tempCleaner); ok {
		if n, err := tc.CleanTemp(ctx); err != nil {
			s.log.Warn("media: temporary files of the storage not removed", "err", err)
		} else if n > 0 {
			s.log.Info("media: removed temporary files of interrupted stores", "files", n)
		}
	}
	if err := s.sweepClaims(ctx, true); err != nil {
		// Left for the periodic sweep: it retries.
		s.log.Warn("media: sweeping the leftovers of interrupted writes failed", "err", err)
	}
	return nil
}

// close stops following the log. The only writer of its state
// then writes a checkpoint, so that the next start reads one object and
// the log after it instead of every sidecar.
func (s *stateSync) close() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	s.bg.Wait()
	if !s.exclusive {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeCheckpointTimeout)
	defer cancel()
	// Its own entries first: a writer's position moves when it reads the
	// log, not when it appends.
	err := s.tail(ctx)
	var behind bool
	s.at(func(p *position) { behind = p.seq > p.checkpointSeq })
	if err == nil && behind {
		err = s.checkpoint(ctx)
	}
	if err != nil {
		s.log.Warn("media: checkpoint at close failed; the next start reads the log", "err", err)
		return
	}
	if _, err := s.st.Create(ctx, cleanMarkKey, []byte(s.now().UTC().Format(time.RFC3339Nano))); err != nil && !errors.Is(err, ErrPrecondition) {
		s.log.Warn("media: marking the shutdown clean failed; the next start sweeps", "err", err)
	}
}

// cleanMarkKey is the state object the only writer leaves at a clean
// Close (no write in flight, a checkpoint of everything written) and
// removes at its next start, which then skips the sweep of claims.
const cleanMarkKey = "clean-shutdown"

// takeCleanMark tells whether the last writer closed cleanly, and removes
// the mark (durably, before this library writes anything) so that a crash
// of this run is swept at the next start.
func (s *stateSync) takeCleanMark(ctx context.Context) (bool, error) {
	if _, _, err := s.st.Get(ctx, cleanMarkKey); err != nil {
		if errors.Is(err, ErrNotExist) {
			return false, nil
		}
		return false, fmt.Errorf("media: reading the clean-shutdown mark: %w", err)
	}
	if err := s.st.Delete(ctx, cleanMarkKey); err != nil {
		return false, fmt.Errorf("media: removing the clean-shutdown mark: %w", err)
	}
	return true, nil
}
