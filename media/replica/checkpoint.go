package replica

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"slices"
	"time"
)

// Checkpoints lists the sequence numbers of the checkpoints, oldest first.
func (r *Replica) Checkpoints(ctx context.Context) ([]int64, error) {
	var out []int64
	err := r.st.List(ctx, CheckpointsPrefix, "", func(o Object) error {
		if n, ok := SeqOf(o.Key, CheckpointsPrefix); ok {
			out = append(out, n)
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

// OpenCheckpoint reads the checkpoint as of seq and returns its
// uncompressed content.
func (r *Replica) OpenCheckpoint(ctx context.Context, seq int64) (io.Reader, error) {
	data, _, err := r.st.Get(ctx, CheckpointKey(seq))
	if err != nil {
		return nil, err
	}
	return gzip.NewReader(bytes.NewReader(data))
}

// WriteCheckpoint writes the checkpoint as of seq with what write puts in
// it, compressed. A checkpoint another box wrote for seq first is kept:
// both describe the same log entry.
func (r *Replica) WriteCheckpoint(ctx context.Context, seq int64, write func(io.Writer) error) error {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err := write(zw); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if _, err := r.st.Create(ctx, CheckpointKey(seq), buf.Bytes()); err != nil && !r.isPrecondition(err) {
		return err
	}
	return nil
}

// Compact deletes what the second newest checkpoint covers: older
// checkpoints, and the log entries up to it written over retain ago (a
// box polling behind the compaction still finds them meanwhile).
func (r *Replica) Compact(ctx context.Context, retain time.Duration) error {
	cps, err := r.Checkpoints(ctx)
	if err != nil || len(cps) < 2 {
		return err
	}
	keep := cps[len(cps)-2]
	for _, n := range cps[:len(cps)-2] {
		if err := r.st.Delete(ctx, CheckpointKey(n)); err != nil {
			return err
		}
	}
	cutoff := r.now().Add(-retain)
	var old []string
	if err := r.st.List(ctx, LogPrefix, "", func(o Object) error {
		n, ok := SeqOf(o.Key, LogPrefix)
		if !ok || n > keep {
			return errStopList
		}
		if o.LastModified.Before(cutoff) {
			old = append(old, o.Key)
		}
		return nil
	}); err != nil && !errors.Is(err, errStopList) {
		return err
	}
	for _, k := range old {
		if err := r.st.Delete(ctx, k); err != nil {
			return err
		}
	}
	return nil
}
