package main

import (
	"os"
	"sync"
)

// fileWriter writes files on a few goroutines. On this kind of machine the
// cost of generating is the file-system calls, not the text, and they
// overlap well; the content itself is still produced in one goroutine, in
// order, so the seed alone decides every byte.
type fileWriter struct {
	jobs chan fileJob
	wg   sync.WaitGroup
	mu   sync.Mutex
	err  error
	once sync.Once
}

type fileJob struct {
	path string
	data []byte
}

func newFileWriter(workers int) *fileWriter {
	w := &fileWriter{jobs: make(chan fileJob, 256)}
	for range workers {
		w.wg.Go(func() {
			for j := range w.jobs {
				if err := os.WriteFile(j.path, j.data, 0o644); err != nil {
					w.mu.Lock()
					if w.err == nil {
						w.err = err
					}
					w.mu.Unlock()
				}
			}
		})
	}
	return w
}

// write queues data for path; data must not be modified afterwards.
func (w *fileWriter) write(path string, data []byte) { w.jobs <- fileJob{path, data} }

// close waits for every queued write and returns the first error. It may
// be called more than once (a deferred close on error paths).
func (w *fileWriter) close() error {
	w.once.Do(func() {
		close(w.jobs)
		w.wg.Wait()
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}
