package guard

import (
	"sync"
	"testing"
)

// TestHeld checks that each function runs fn inside the lock (a TryLock
// there fails) and releases it after, also when fn panics.
func TestHeld(t *testing.T) {
	var rw RW[int]
	rw.Write(func(v *int) {
		*v = 7
		if rw.mu.TryRLock() {
			t.Error("Write: the lock is free inside fn")
		}
	})
	rw.Read(func(v *int) {
		if *v != 7 {
			t.Errorf("Read: %d, want 7", *v)
		}
		if rw.mu.TryLock() {
			t.Error("Read: the write lock is free inside fn")
		}
	})
	var m Mutex[string]
	m.Do(func(v *string) {
		*v = "x"
		if m.mu.TryLock() {
			t.Error("Do: the lock is free inside fn")
		}
	})
	for name, fn := range map[string]func(){
		"Read":  func() { rw.Read(func(*int) { panic("x") }) },
		"Write": func() { rw.Write(func(*int) { panic("x") }) },
		"Do":    func() { m.Do(func(*string) { panic("x") }) },
	} {
		func() {
			defer func() { recover() }()
			fn()
		}()
		if !rw.mu.TryLock() {
			t.Errorf("%s: the lock is held after a panic in fn", name)
		} else {
			rw.mu.Unlock()
		}
		if !m.mu.TryLock() {
			t.Errorf("%s: the lock is held after a panic in fn", name)
		} else {
			m.mu.Unlock()
		}
	}
}

// TestConcurrent runs writers and readers at once, for the race detector.
func TestConcurrent(t *testing.T) {
	var rw RW[map[int]int]
	rw.Write(func(v *map[int]int) { *v = map[int]int{} })
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 100 {
				rw.Write(func(v *map[int]int) { (*v)[i] = j })
				rw.Read(func(v *map[int]int) { _ = (*v)[i] })
			}
		})
	}
	wg.Wait()
	rw.Read(func(v *map[int]int) {
		if len(*v) != 8 {
			t.Errorf("%d keys, want 8", len(*v))
		}
	})
}
