package store

import (
	"errors"
	"io"
	"sync"

	"golang.org/x/sys/unix"
)

// osPageSize is RocketMQ's OS_PAGE_SIZE (MappedFile): the unit of flushLeastPages.
const osPageSize = 4096

// allocateFile gives fd size bytes of real disk blocks, so that a later write through the
// mapping can never hit a hole on a full disk (SIGBUS). A file system without fallocate
// (EOPNOTSUPP) falls back to ftruncate, which leaves a sparse file.
func allocateFile(fd int, size int64) error {
	err := unix.Fallocate(fd, 0, 0, size)
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS) {
		return unix.Ftruncate(fd, size)
	}
	return err
}

// mmapFile maps size bytes of fd shared, read-write.
func mmapFile(fd int, size int) ([]byte, error) {
	return unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
}

func munmap(b []byte) error { return unix.Munmap(b) }

// flushRange forces data[from:to] of a mapping of fd to disk: msync(MS_SYNC) of the pages
// covering the range, or fdatasync of the whole file (see useMsync; always when fdatasync is
// true, for bytes that reached the file by pwrite).
func flushRange(fd int, data []byte, from, to int, fdatasync bool) error {
	if !useMsync || fdatasync {
		return unix.Fdatasync(fd)
	}
	from -= from % osPageSize
	if to <= from {
		return nil
	}
	return unix.Msync(data[from:to], unix.MS_SYNC)
}

// syncDir forces a directory's entries to disk, so a file just created (renamed) in it
// survives a power cut with its name.
func syncDir(dir string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Fsync(fd)
}

// lockFileExclusive takes an exclusive open-file-description lock on byte 0 of fd. OFD locks
// conflict with each other even inside one process (a second store in the same process
// fails) and with the POSIX record lock Java's FileChannel#tryLock(0, 1, false) takes, so a
// Java broker and ours cannot share a store either.
func lockFileExclusive(fd int) error {
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart, Start: 0, Len: 1}
	return unix.FcntlFlock(uintptr(fd), unix.F_OFD_SETLK, &lk)
}

func unlockFile(fd int) error {
	lk := unix.Flock_t{Type: unix.F_UNLCK, Whence: io.SeekStart, Start: 0, Len: 1}
	return unix.FcntlFlock(uintptr(fd), unix.F_OFD_SETLK, &lk)
}

var totalPhysicalMemory = sync.OnceValue(func() int64 {
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err != nil {
		return 8 << 30
	}
	return int64(si.Totalram) * int64(si.Unit)
})

// allocateRange gives the range [off, off+n) of fd real disk blocks without changing the
// file's length (the range lies inside it). false with a nil error means the file system
// cannot allocate (no fallocate): the caller stops asking and accepts a sparse file.
func allocateRange(fd int, off, n int64) (bool, error) {
	err := unix.Fallocate(fd, unix.FALLOC_FL_KEEP_SIZE, off, n)
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS) {
		return false, nil
	}
	return err == nil, err
}

// diskPartitionSpaceUsedPercent is the used fraction (0..1) of the file system holding path,
// -1 when path does not exist or cannot be measured. Java: UtilAll#getDiskPartitionSpaceUsedPercent
// (File#getTotalSpace and #getFreeSpace: total and free blocks, reserved ones counted as used).
func diskPartitionSpaceUsedPercent(path string) float64 {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return -1
	}
	total := float64(st.Blocks) * float64(st.Bsize)
	if total <= 0 {
		return -1
	}
	free := float64(st.Bfree) * float64(st.Bsize)
	return (total - free) / total
}
