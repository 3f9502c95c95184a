//go:build linux || darwin

package store

import "golang.org/x/sys/unix"

// The system calls Linux and macOS share (golang.org/x/sys/unix has them for both). What
// differs — allocating a file's blocks, forcing data to disk, the store lock, the size of
// RAM, the file system's block size — is in sys_linux.go and sys_darwin.go; any other
// system stops the build in sys_unsupported.go.

// sysPageSize is the kernel's page size (4 KiB on Linux/x86, 16 KiB on Apple silicon): msync
// takes page-aligned addresses. osPageSize, RocketMQ's fixed 4 KiB, stays the unit of
// flushLeastPages and of the warm-up.
var sysPageSize = unix.Getpagesize()

// mmapFile maps size bytes of fd shared, read-write.
func mmapFile(fd int, size int) ([]byte, error) {
	return unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
}

func munmap(b []byte) error { return unix.Munmap(b) }

// mmapAnonymous maps size bytes of private memory outside the Go heap (the write buffers of
// the TransientStorePool).
func mmapAnonymous(size int) ([]byte, error) {
	return unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
}

// mlock keeps b in RAM (the memlock limit, ulimit -l, may refuse); munlock undoes it.
func mlock(b []byte) error   { return unix.Mlock(b) }
func munlock(b []byte) error { return unix.Munlock(b) }

// madviseWillNeed tells the kernel the mapping b is about to be used (read ahead). A hint:
// its failure changes nothing.
func madviseWillNeed(b []byte) { _ = unix.Madvise(b, unix.MADV_WILLNEED) }

// truncateFile sets fd's length to size bytes without allocating blocks (a sparse file).
func truncateFile(fd int, size int64) error { return unix.Ftruncate(fd, size) }

// flushRange forces data[from:to] of a mapping of fd to disk: msync(MS_SYNC) of the pages
// covering the range, or fdatasync of the whole file (see useMsync; always when sync is
// true, for bytes that reached the file by pwrite).
func flushRange(fd int, data []byte, from, to int, sync bool) error {
	if !useMsync || sync {
		return fdatasync(fd)
	}
	from -= from % sysPageSize
	if to <= from {
		return nil
	}
	return unix.Msync(data[from:to], unix.MS_SYNC)
}

// syncDir forces a directory's entries to disk, so a file just created (renamed) in it
// survives a power cut with its name. On macOS fsync of the directory hands it to the drive;
// the F_FULLFSYNC of the first flush of the file's data (fdatasync) then empties the drive's
// cache with the entry in it.
func syncDir(dir string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Fsync(fd)
}

// diskPartitionSpaceUsedPercent is the used fraction (0..1) of the file system holding path,
// -1 when path does not exist or cannot be measured. Java: UtilAll#getDiskPartitionSpaceUsedPercent
// (File#getTotalSpace and #getFreeSpace: total and free blocks, reserved ones counted as used).
func diskPartitionSpaceUsedPercent(path string) float64 {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return -1
	}
	total := float64(st.Blocks) * statfsBlockSize(&st)
	if total <= 0 {
		return -1
	}
	free := float64(st.Bfree) * statfsBlockSize(&st)
	return (total - free) / total
}
