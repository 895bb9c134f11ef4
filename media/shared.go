package media

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/gob"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

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

// sharedState is what a shared library knows beyond the items: l.mu
// guards it.
type sharedState struct {
	st  StateStore
	rep *replica.Replica
	box string
	// seq is the last log entry applied; appended the last one this
	// library appended.
	seq, appended int64
	// foldersVersion is the version of the folder list in l.explicit.
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

	poll time.Duration
	stop chan struct{}
	// bg counts the background loops, follow and housekeep.
	bg sync.WaitGroup
	// loopMu serialises the poller's work with Sync.
	loopMu sync.Mutex
	// exclusive is true when this library is the only writer of its
	// state (soleWriterState): it sweeps at Open and checkpoints at Close.
	exclusive bool
	// migrated is the report of the migration Open made, until
	// MigrateLocal hands it out; migrateMu orders migrations.
	migrated  *MigrateReport
	migrateMu sync.Mutex
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
	if err := yaml.Unmarshal(data, &it); err != nil {
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

// openShared loads a shared library: the newest checkpoint, else every
// sidecar, then the log after it; and starts following the log.
func (l *Library) openShared(ctx context.Context) error {
	l.sh = &sharedState{
		st:    l.cfg.State,
		rep:   replica.New(l.cfg.State, replica.Errors{NotExist: ErrNotExist, Precondition: ErrPrecondition}, l.now, l.log),
		box:   rand.Text()[:12],
		tombs: replica.Tombs{},
		etags: map[string]string{},
		poll:  l.cfg.PollInterval,
		stop:  make(chan struct{}),
	}
	if l.sh.poll <= 0 {
		l.sh.poll = DefaultPollInterval
	}
	if !l.cfg.ReadOnly {
		// Temporary files of uploads a crash (kill -9) interrupted: the
		// bucket's claims settle those writes, the files are only litter.
		l.cleanTmp()
		if err := l.migrateLocal(ctx); err != nil {
			return err
		}
	}
	// The only writer's start reconciles with a listing of every sidecar
	// (sweepAtOpen). Nothing writes a sidecar until Open returns (the
	// migration is done; no other process writes while this one holds
	// the writer lock, and when it does not hold it the listing goes
	// unused), so the listing runs beside the checkpoint's load instead of
	// after it: a directory read and a stat per sidecar on local disk.
	var pre *sidecarListing
	if _, ok := l.cfg.State.(soleWriterState); ok && !l.cfg.ReadOnly {
		pre = l.listSidecarsAsync(ctx)
		defer pre.wait() // never left running past Open
	}
	loaded, err := l.loadCheckpoint(ctx, 0)
	if err != nil {
		return err
	}
	if !loaded {
		if err := l.rescan(ctx); err != nil {
			return err
		}
	}
	if err := l.tail(ctx); err != nil {
		return err
	}
	if ex, ok := l.cfg.State.(soleWriterState); ok && !l.cfg.ReadOnly && ex.SoleWriter() {
		l.sh.exclusive = true
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
		l.sh.rep.SetUnsyncedLog()
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
		l.sh.rep.SetNameSyncedClaims()
		clean, err := l.takeCleanMark(ctx)
		if err != nil {
			return err
		}
		if err := l.sweepAtOpen(ctx, !clean, pre); err != nil {
			return err
		}
		if !loaded {
			if err := l.recordRescan(ctx); err != nil {
				return err
			}
		}
	}
	l.sh.bg.Go(l.follow)
	l.sh.bg.Go(l.housekeepLoop)
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
func (l *Library) recordRescan(ctx context.Context) error {
	l.mu.RLock()
	seq, n := l.sh.seq, len(l.items)
	l.mu.RUnlock()
	if seq != 0 || n == 0 {
		return nil
	}
	data, err := encodeGob(&logEntry{Op: opRescan, At: l.now().UTC(), Box: l.sh.box, Nonce: rand.Text()})
	if err != nil {
		return err
	}
	at, err := l.sh.rep.Append(ctx, 1, data)
	if err != nil {
		return fmt.Errorf("media: recording the rescan of a library without a log: %w", err)
	}
	l.mu.Lock()
	if l.sh.seq == at-1 {
		// The entry says "read every sidecar", which this start did.
		l.sh.seq = at
	}
	l.sh.appended = max(l.sh.appended, at)
	l.mu.Unlock()
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
func (l *Library) sweepAtOpen(ctx context.Context, crashed bool, pre *sidecarListing) error {
	listed, err := pre.wait()
	if err == nil && listed == nil {
		listed, err = l.listSidecars(ctx)
	}
	if err != nil {
		return err
	}
	applied, err := l.reconcileListed(ctx, listed)
	if err != nil {
		return err
	}
	// What the log missed goes into it now, for the read-only boxes
	// that follow it (they reconcile only every reconcileEvery).
	for _, e := range applied {
		l.appendLog(ctx, e)
	}
	if !crashed {
		return nil
	}
	if tc, ok := l.cfg.Storage.(tempCleaner); ok {
		if n, err := tc.CleanTemp(ctx); err != nil {
			l.log.Warn("media: temporary files of the storage not removed", "err", err)
		} else if n > 0 {
			l.log.Info("media: removed temporary files of interrupted stores", "files", n)
		}
	}
	if err := l.sweepClaims(ctx, true); err != nil {
		// Left for the periodic sweep: it retries.
		l.log.Warn("media: sweeping the leftovers of interrupted writes failed", "err", err)
	}
	return nil
}

// closeShared stops following the log. The only writer of its state
// then writes a checkpoint, so that the next start reads one object and
// the log after it instead of every sidecar.
func (l *Library) closeShared() {
	select {
	case <-l.sh.stop:
	default:
		close(l.sh.stop)
	}
	l.sh.bg.Wait()
	if !l.sh.exclusive {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeCheckpointTimeout)
	defer cancel()
	// Its own entries first: a writer's position moves when it reads the
	// log, not when it appends.
	err := l.tail(ctx)
	l.mu.RLock()
	behind := l.sh.seq > l.sh.checkpointSeq
	l.mu.RUnlock()
	if err == nil && behind {
		err = l.Checkpoint(ctx)
	}
	if err != nil {
		l.log.Warn("media: checkpoint at close failed; the next start reads the log", "err", err)
		return
	}
	if _, err := l.sh.st.Create(ctx, cleanMarkKey, []byte(l.now().UTC().Format(time.RFC3339Nano))); err != nil && !errors.Is(err, ErrPrecondition) {
		l.log.Warn("media: marking the shutdown clean failed; the next start sweeps", "err", err)
	}
}

// cleanMarkKey is the state object the only writer leaves at a clean
// Close (no write in flight, a checkpoint of everything written) and
// removes at its next start, which then skips the sweep of claims.
const cleanMarkKey = "clean-shutdown"

// takeCleanMark tells whether the last writer closed cleanly, and removes
// the mark (durably, before this library writes anything) so that a crash
// of this run is swept at the next start.
func (l *Library) takeCleanMark(ctx context.Context) (bool, error) {
	if _, _, err := l.sh.st.Get(ctx, cleanMarkKey); err != nil {
		if errors.Is(err, ErrNotExist) {
			return false, nil
		}
		return false, fmt.Errorf("media: reading the clean-shutdown mark: %w", err)
	}
	if err := l.sh.st.Delete(ctx, cleanMarkKey); err != nil {
		return false, fmt.Errorf("media: removing the clean-shutdown mark: %w", err)
	}
	return true, nil
}

// closeCheckpointTimeout bounds the checkpoint Close writes.
const closeCheckpointTimeout = time.Minute

// follow polls the log until Close; writers also write checkpoints and
// compact the log.
func (l *Library) follow() {
	t := time.NewTicker(l.sh.poll)
	defer t.Stop()
	failing := false
	for {
		select {
		case <-l.sh.stop:
			return
		case <-t.C:
		}
		ctx, cancel := l.stoppable(time.Minute)
		// A failure is logged when it begins and when it ends, not at
		// every poll of a bucket that is down.
		switch err := l.Sync(ctx); {
		case err != nil && ctx.Err() == nil && !failing:
			failing = true
			l.log.Warn("media: following the shared library's log failed; retrying every poll", "err", err)
		case err == nil && failing:
			failing = false
			l.log.Info("media: following the shared library's log again")
		}
		if !l.cfg.ReadOnly && ctx.Err() == nil {
			if err := l.maybeCheckpoint(ctx); err != nil && ctx.Err() == nil {
				l.log.Warn("media: checkpoint failed", "err", err)
			}
		}
		cancel()
	}
}

// stoppable is a context that ends after d or when the library closes.
func (l *Library) stoppable(d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	go func() {
		select {
		case <-l.sh.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// Sync applies the changes other boxes made since the last call. A
// library calls it by itself every poll interval; tests and tools call it
// to catch up at once.
func (l *Library) Sync(ctx context.Context) error {
	return l.tail(ctx)
}

// tail applies the log entries after the last one applied.
func (l *Library) tail(ctx context.Context) error {
	l.sh.loopMu.Lock()
	defer l.sh.loopMu.Unlock()
	l.mu.RLock()
	seq := l.sh.seq
	l.mu.RUnlock()
	err := l.sh.rep.Tail(ctx, seq, func(n int64, data []byte) (bool, error) {
		var e logEntry
		if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&e); err != nil {
			l.log.Error("media: corrupt log entry skipped", "entry", replica.LogKey(n), "err", err)
		} else if e.Op == opRescan {
			// The rescan moves the position past this entry.
			return true, l.rescanLocked(ctx)
		} else {
			l.apply(&e)
		}
		l.mu.Lock()
		l.sh.seq = n
		l.mu.Unlock()
		return false, nil
	})
	var behind *replica.BehindError
	if !errors.As(err, &behind) {
		return err
	}
	// The entries between were compacted: start again from the newest
	// checkpoint, which covers them; the next call goes on from there.
	l.log.Info("media: behind the log's compaction; reloading from a checkpoint", "at", behind.At, "next", behind.Next)
	loaded, err := l.loadCheckpointLocked(ctx, behind.At+1)
	if err != nil || loaded {
		return err
	}
	return l.rescanLocked(ctx)
}

// apply makes one log entry's change in the index, unless the index holds
// it already or something newer (entries of one item can reach the log out
// of the order their sidecar writes won in; Version orders them).
func (l *Library) apply(e *logEntry) {
	switch e.Op {
	case opPut:
		if err := checkEntryItem(e.Item); err != nil {
			l.log.Error("media: invalid item in the log skipped", "err", err)
			return
		}
		it := *e.Item
		l.mu.Lock()
		if l.sh.tombs.Buried(it.ID) {
			l.mu.Unlock()
			return
		}
		cur, ok := l.items[it.ID]
		if ok && cur.Version >= it.Version {
			if cur.Version == it.Version && e.ETag != "" {
				l.sh.etags[it.ID] = e.ETag
			}
			l.mu.Unlock()
			return
		}
		if ok {
			l.removeLocked(cur)
		}
		l.addLocked(&it)
		if e.ETag != "" {
			l.sh.etags[it.ID] = e.ETag
		} else {
			delete(l.sh.etags, it.ID)
		}
		l.mu.Unlock()
		l.changed(&it, false)
	case opDelete:
		if e.Item == nil || !ValidID(e.Item.ID) {
			return
		}
		l.mu.Lock()
		l.sh.tombs.Bury(e.Item.ID, e.At)
		delete(l.sh.etags, e.Item.ID)
		cur, ok := l.items[e.Item.ID]
		if ok {
			l.removeLocked(cur)
			delete(l.locks, cur.ID)
		}
		l.mu.Unlock()
		if ok {
			l.changed(cur, true)
		}
	case opFolders:
		l.setFolders(e.Folders, e.FoldersVersion)
	}
}

// setFolders replaces the explicit folders with a newer version.
func (l *Library) setFolders(folders []string, version int) {
	next := map[string]bool{}
	for _, p := range folders {
		if c, err := CleanFolder(p); err == nil && c != RootFolder {
			next[c] = true
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if version <= l.sh.foldersVersion {
		return
	}
	l.explicit = next
	l.sh.foldersVersion = version
	clear(l.orders)
}

// appendLog writes e at the next free place of the log. The write has
// already been committed to its sidecar: failing here delays other boxes
// until the next rescan or checkpoint, so the failure is logged, not
// returned.
func (l *Library) appendLog(ctx context.Context, e logEntry) {
	e.At = l.now().UTC()
	e.Box, e.Nonce = l.sh.box, rand.Text()
	data, err := encodeGob(&e)
	if err == nil {
		err = l.appendLogData(context.WithoutCancel(ctx), data)
	}
	if err == nil {
		return
	}
	l.log.Error("media: change not written to the shared log yet; retrying in the background", "op", e.Op, "err", err)
	// The write itself is done (its sidecar is the truth) and was
	// answered: the other boxes must still hear of it within seconds of
	// the bucket answering again, not at the next reconcile (10 min).
	// Appending the same entry late is safe: boxes apply an item's
	// versions, and folder lists, only forward.
	select {
	case <-l.sh.stop:
		return
	default:
	}
	l.sh.bg.Go(func() { l.retryLog(e.Op, data) })
}

// retryLog appends an entry whose first append failed, with a growing
// pause between tries, until it is written or the library closes.
func (l *Library) retryLog(op string, data []byte) {
	wait := logRetryFirst
	for try := 1; ; try++ {
		select {
		case <-l.sh.stop:
			l.log.Error("media: change never written to the shared log; other boxes see it at their next rescan", "op", op)
			return
		case <-time.After(wait):
		}
		ctx, cancel := l.stoppable(time.Minute)
		err := l.appendLogData(ctx, data)
		cancel()
		if err == nil {
			l.log.Info("media: change written to the shared log after retrying", "op", op, "tries", try)
			return
		}
		wait = min(2*wait, logRetryMax)
	}
}

// The pauses between tries of retryLog.
const (
	logRetryFirst = 250 * time.Millisecond
	logRetryMax   = 10 * time.Second
)

// appendLogData appends after the last entry this library knows of: the
// last it applied or the last it appended itself, so that a box that
// writes faster than it polls does not try every place it filled since.
func (l *Library) appendLogData(ctx context.Context, data []byte) error {
	l.mu.RLock()
	seq := max(l.sh.seq, l.sh.appended) + 1
	l.mu.RUnlock()
	n, err := l.sh.rep.Append(ctx, seq, data)
	if err == nil {
		l.mu.Lock()
		l.sh.appended = max(l.sh.appended, n)
		l.mu.Unlock()
	}
	return err
}

// rescan reads every sidecar and the folder list, and replaces the index
// with what they say. The log position is taken first, so entries written
// during the scan are applied again after it (which is harmless).
func (l *Library) rescan(ctx context.Context) error {
	l.sh.loopMu.Lock()
	defer l.sh.loopMu.Unlock()
	return l.rescanLocked(ctx)
}

func (l *Library) rescanLocked(ctx context.Context) error {
	last, err := l.sh.rep.Last(ctx)
	if err != nil {
		return err
	}
	var ids []string
	if err := l.sh.st.List(ctx, stateItems, "", func(o StateObject) error {
		if id, ok := strings.CutSuffix(strings.TrimPrefix(o.Key, stateItems), ".yaml"); ok && ValidID(id) {
			ids = append(ids, id)
		}
		return nil
	}); err != nil {
		return err
	}
	items := make([]*Item, len(ids))
	tags := make([]string, len(ids))
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	next := make(chan int)
	for range 32 {
		wg.Go(func() {
			for i := range next {
				data, tag, err := l.sh.st.Get(ctx, itemStateKey(ids[i]))
				if errors.Is(err, ErrNotExist) {
					continue // deleted meanwhile
				}
				tags[i] = tag
				if err != nil {
					errs[i] = err
					continue
				}
				it, err := decodeSharedSidecar(ids[i], data)
				if err != nil {
					l.log.Error("media: corrupt sidecar in the bucket; item skipped", "id", ids[i], "err", err)
					continue
				}
				items[i] = it
			}
		})
	}
	for i := range ids {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	fs, _, err := l.readFolders(ctx)
	if err != nil {
		return err
	}
	etags := make(map[string]string, len(ids))
	for i, id := range ids {
		if items[i] != nil {
			etags[id] = tags[i]
		}
	}
	l.replaceAll(items, etags, fs.Folders, fs.Version, nil, last)
	return nil
}

// readFolders reads folders.yaml; a missing one is an empty list.
func (l *Library) readFolders(ctx context.Context) (foldersState, string, error) {
	return readFoldersOf(ctx, l.sh.st)
}

// readFoldersOf reads folders.yaml of st; a missing one is an empty list.
func readFoldersOf(ctx context.Context, st StateStore) (foldersState, string, error) {
	data, etag, err := st.Get(ctx, stateFolders)
	if errors.Is(err, ErrNotExist) {
		return foldersState{}, "", nil
	}
	if err != nil {
		return foldersState{}, "", err
	}
	var fs foldersState
	if err := yaml.Unmarshal(data, &fs); err != nil {
		return foldersState{}, "", fmt.Errorf("media: %s does not parse: %w", stateFolders, err)
	}
	return fs, etag, nil
}

// presize makes the empty index's maps for items; l.mu is held.
func (l *Library) presize(items []*Item, etags int) {
	keys := 0
	for _, it := range items {
		if it != nil {
			keys += 1 + len(it.Sizes)
		}
	}
	l.items = make(map[string]*Item, len(items))
	l.claimed = make(map[string]string, keys)
	if len(l.sh.etags) == 0 {
		l.sh.etags = make(map[string]string, etags)
	}
}

// replaceAll makes the index what items say, as of log entry seq, and
// tells OnChange what changed: an item added or changed, or deleted.
func (l *Library) replaceAll(items []*Item, etags map[string]string, folders []string, foldersVersion int, tombs replica.Tombs, seq int64) {
	var changed, deleted []*Item
	l.mu.Lock()
	// The first load (at Open) fills an empty index: its maps are made
	// at their final size (growing them item by item was a third of a
	// start from a checkpoint), and nothing can be missing from items.
	fresh := len(l.items) == 0
	var seen map[string]bool
	if fresh {
		l.presize(items, len(etags))
		changed = make([]*Item, 0, len(items))
	} else {
		seen = make(map[string]bool, len(items))
	}
	for _, it := range items {
		if it == nil {
			continue
		}
		if fresh {
			if _, dup := l.items[it.ID]; dup {
				continue
			}
		} else {
			if seen[it.ID] {
				continue
			}
			seen[it.ID] = true
		}
		cur, ok := l.items[it.ID]
		if tag, known := etags[it.ID]; known && (!ok || cur.Version <= it.Version) {
			l.sh.etags[it.ID] = tag
		}
		if ok && cur.Version >= it.Version {
			continue
		}
		conflict := false
		for _, k := range itemKeys(it) {
			if owner, taken := l.claimed[claimKey(k)]; taken && owner != it.ID {
				conflict = true
			}
		}
		if conflict {
			l.log.Error("media: item claims a file another item owns; skipped", "id", it.ID, "key", it.Key)
			continue
		}
		if ok {
			l.removeLocked(cur)
		}
		l.addLocked(it)
		changed = append(changed, it)
	}
	for id, cur := range l.items {
		if !fresh && !seen[id] {
			l.removeLocked(cur)
			delete(l.sh.etags, id)
			deleted = append(deleted, cur)
		}
	}
	for id, at := range tombs {
		l.sh.tombs.Bury(id, at)
	}
	l.sh.seq = seq
	l.sh.foldersVersion = -1 // what was read replaces what was known
	l.mu.Unlock()
	l.setFolders(folders, max(foldersVersion, 0))
	for _, it := range deleted {
		l.changed(it, true)
	}
	for _, it := range changed {
		l.changed(it, false)
	}
}
