package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// scalePushOnly (-scale-push-only) measures only the scale group's push
// rows: the -scale-size site restarted from the parse cache kept in
// -scale-keep (written by a first start when it is not there, as
// -scale-load-only does), left to go idle, then the group's one-file
// pushes timed as the whole group times them. No first start, offsets,
// branches or loads: a few minutes a run at 1M instead of a quarter of
// an hour. The kept clone keeps the pushes of the runs before.
func (b *bench) scalePushOnly() error {
	root := b.scaleKeep
	if root != "" && b.against != "" && b.cur != nil {
		root = filepath.Join(root, b.cur.name) // each binary's parse caches (-against)
	}
	tmp, err := b.scratch("scale-push")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if root == "" {
		root = tmp
	}
	s, err := b.scaleKeptSite(root, b.scaleSize)
	if err != nil {
		return err
	}
	if len(s.m.Posts) == 0 {
		return fmt.Errorf("the %s site has no posts", s.label)
	}
	src := filepath.Join(tmp, "src.git")
	if err := git("", "clone", "-q", "--bare", s.served, src); err != nil {
		return err
	}
	b.logf("  %s: restart, load average %s", s.label, loadAvg())
	st, err := b.scaleStart(s.served, s.media, s.cache, filepath.Join(tmp, "heap-push.pb.gz"))
	if err != nil {
		return fmt.Errorf("%s: restart: %w", s.label, err)
	}
	defer st.s.stopWithin(time.Minute)
	idle, err := waitIdle(st.s.pid(), 2*time.Minute)
	if err != nil {
		return err
	}
	b.logf("  %s: idle, %.1f%% of a core over the last second", s.label, idle*100)
	return b.scalePush(st.s, src, s.m, s.label)
}
