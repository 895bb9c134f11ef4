package notify

// QueuedKeys returns the keys waiting in the queue of the first URL, so
// that a test can tell when every event sent has reached it.
func (n *Notifier) QueuedKeys() []string {
	t := n.targets[0]
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, ev := range t.queue {
		out = append(out, ev.Keys...)
	}
	return out
}
