package local

import "golang.org/x/sys/unix"

// startWriteback starts writing the dirty pages of the file fd to the
// disk and returns without waiting for them (sync_file_range(2) with
// SYNC_FILE_RANGE_WRITE): best effort, durable only after a sync. On ext4
// this allocates the file's blocks now, in the journal's running
// transaction, so that the syncs that follow (of this file, and of the
// folders whose entries were made before) are served by one commit of the
// journal. A sync of the file that begins while another file's blocks
// are still unallocated waits for a second commit after the first one,
// which a write of that other file's blocks joins late.
func startWriteback(fd int) {
	unix.SyncFileRange(fd, 0, 0, unix.SYNC_FILE_RANGE_WRITE)
}
