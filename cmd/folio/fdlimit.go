package main

import "syscall"

// openFileLimit is the process's limit of open files (RLIMIT_NOFILE, which
// the Go runtime raises to the hard limit at start-up), 0 if unknown.
func openFileLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<30 {
		return 0
	}
	return int(rl.Cur)
}

// defaultMaxConns is --max-conns when not given: three quarters of the
// open-file limit (the rest for the Git packs, the search indexes, media
// files and outgoing connections), at most 16384; 0 (no bound) when the
// limit is unknown.
func defaultMaxConns() int {
	n := openFileLimit()
	if n == 0 {
		return 0
	}
	return max(64, min(16384, n*3/4))
}
