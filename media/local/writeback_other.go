//go:build !linux

package local

// startWriteback does nothing where sync_file_range(2) does not exist:
// the sync that follows writes the file.
func startWriteback(fd int) {}
