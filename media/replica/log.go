package replica

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
)

// BehindError is returned by Tail when the entries after the reader's
// position were compacted away: the reader reloads from a checkpoint at
// or after Next-1, which covers them.
type BehindError struct{ At, Next int64 }

func (e *BehindError) Error() string {
	return fmt.Sprintf("replica: behind the log's compaction: at %d, next entry %d", e.At, e.Next)
}

// appendProbes is how many next places Append tries after a taken one
// before it lists the log for its end.
const appendProbes = 4

// Append writes data at the first free place of the log at or after
// from, and returns its sequence number. A place another writer took is
// skipped; one holding these very bytes is ours (a retried request made
// it), so an entry is written once.
func (r *Replica) Append(ctx context.Context, from int64, data []byte) (int64, error) {
	seq := max(from, 1)
	probes := 0
	create := r.st.Create
	if u := r.unsyncedLog.Load(); u != nil {
		create = (*u).CreateUnsynced
	}
	for range 1000 {
		_, err := create(ctx, LogKey(seq), data)
		if err == nil {
			return seq, nil
		}
		if !r.isPrecondition(err) {
			return 0, err
		}
		if got, _, gerr := r.st.Get(ctx, LogKey(seq)); gerr == nil && bytes.Equal(got, data) {
			return seq, nil
		}
		// Taken: most often by a concurrent append of the same box, just
		// before; the next places first, then past the last entry listed.
		if probes++; probes <= appendProbes {
			seq++
			continue
		}
		probes = 0
		last, err := r.lastAfter(ctx, seq)
		if err != nil {
			return 0, err
		}
		seq = max(last, seq) + 1
	}
	return 0, errors.New("replica: no free place in the log")
}

// Last is the sequence number of the newest log entry, 0 for none.
func (r *Replica) Last(ctx context.Context) (int64, error) { return r.lastAfter(ctx, 0) }

func (r *Replica) lastAfter(ctx context.Context, after int64) (int64, error) {
	last := after
	start := ""
	if after > 0 {
		start = LogKey(after)
	}
	err := r.st.List(ctx, LogPrefix, start, func(o Object) error {
		if n, ok := SeqOf(o.Key, LogPrefix); ok {
			last = n
		}
		return nil
	})
	return last, err
}

// Tail hands the log entries after seq to apply, in order, each with its
// sequence number; apply returns stop to end the call after an entry (its
// position moved elsewhere, e.g. it reloaded everything). Tail returns a
// *BehindError when the entry after seq is gone while later ones are
// there (compacted), and returns quietly when an entry vanishes while it
// is read (compacted just now: the next call finds the gap). A listing
// that misses an entry written while it ran (a directory read during
// creates can) is not a gap: the entry is read by its name, and the log
// listed again. Entries are read several at a time: a box far behind
// reads up to a thousand.
func (r *Replica) Tail(ctx context.Context, seq int64, apply func(n int64, data []byte) (stop bool, err error)) error {
	for range tailRelists {
		next, again, err := r.tailOnce(ctx, seq, apply)
		if err != nil || !again {
			return err
		}
		seq = next
	}
	return nil
}

// tailRelists bounds the listings of one Tail that found a missed entry.
const tailRelists = 4

// tailOnce is one listing of Tail; again reports that it stopped at an
// entry the listing missed, at position next.
func (r *Replica) tailOnce(ctx context.Context, seq int64, apply func(n int64, data []byte) (stop bool, err error)) (next int64, again bool, err error) {
	var keys []string
	err = r.st.List(ctx, LogPrefix, LogKey(seq), func(o Object) error {
		keys = append(keys, o.Key)
		return nil
	})
	if err != nil {
		return seq, false, err
	}
	datas, errs := r.fetchAll(ctx, keys)
	for i, k := range keys {
		n, ok := SeqOf(k, LogPrefix)
		if !ok {
			continue
		}
		if n != seq+1 {
			_, _, gerr := r.st.Get(ctx, LogKey(seq+1))
			switch {
			case gerr == nil:
				return seq, true, nil // missed by the listing
			case !r.isNotExist(gerr):
				return seq, false, gerr
			}
			return seq, false, &BehindError{At: seq, Next: n}
		}
		if r.isNotExist(errs[i]) {
			return seq, false, nil
		}
		if errs[i] != nil {
			return seq, false, errs[i]
		}
		stop, err := apply(n, datas[i])
		if err != nil || stop {
			return seq, false, err
		}
		seq = n
	}
	return seq, false, nil
}

// fetchAll reads the objects at keys, several at a time.
func (r *Replica) fetchAll(ctx context.Context, keys []string) ([][]byte, []error) {
	datas := make([][]byte, len(keys))
	errs := make([]error, len(keys))
	if len(keys) == 1 {
		datas[0], _, errs[0] = r.st.Get(ctx, keys[0])
		return datas, errs
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(16, len(keys)) {
		wg.Go(func() {
			for i := range next {
				datas[i], _, errs[i] = r.st.Get(ctx, keys[i])
			}
		})
	}
	for i := range keys {
		next <- i
	}
	close(next)
	wg.Wait()
	return datas, errs
}
