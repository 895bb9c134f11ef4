// Package guard keeps a value behind a lock and hands it out only while
// the lock is held: the value has no other way in, so code that reaches
// it holds the lock, and a function given a *T is known to run inside it.
package guard

import "sync"

// RW is a value of type T guarded by a sync.RWMutex. Its zero value holds
// T's zero value, unlocked. It must not be copied.
type RW[T any] struct {
	mu sync.RWMutex
	v  T
}

// Read runs fn with the lock held for reading. fn must not change *v,
// nor keep v after it returns.
func (g *RW[T]) Read(fn func(v *T)) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	fn(&g.v)
}

// Write runs fn with the lock held for writing. fn must not keep v after
// it returns.
func (g *RW[T]) Write(fn func(v *T)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	fn(&g.v)
}

// Mutex is a value of type T guarded by a sync.Mutex. Its zero value holds
// T's zero value, unlocked. It must not be copied.
type Mutex[T any] struct {
	mu sync.Mutex
	v  T
}

// Do runs fn with the lock held. fn must not keep v after it returns.
func (g *Mutex[T]) Do(fn func(v *T)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	fn(&g.v)
}
