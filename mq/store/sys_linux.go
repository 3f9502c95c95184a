package store

import (
	"errors"
	"io"
	"sync"

	"golang.org/x/sys/unix"
)

// The Linux half of the store's system calls (sys_unix.go has the shared ones).

// allocateFile gives fd size bytes of real disk blocks (fallocate), so that a later write
// through the mapping can never hit a hole on a full disk (SIGBUS). A file system without
// fallocate (EOPNOTSUPP) falls back to ftruncate, which leaves a sparse file.
func allocateFile(fd int, size int64) error {
	err := unix.Fallocate(fd, 0, 0, size)
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS) {
		return unix.Ftruncate(fd, size)
	}
	return err
}

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

// fdatasync forces fd's data (and the metadata needed to read it back) to disk.
func fdatasync(fd int) error { return unix.Fdatasync(fd) }

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

// totalPhysicalMemory is the machine's RAM in bytes (8 GiB when it cannot be read).
var totalPhysicalMemory = sync.OnceValue(func() int64 {
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err != nil {
		return 8 << 30
	}
	return int64(si.Totalram) * int64(si.Unit)
})

// statfsBlockSize is the unit of statfs's block counts: the fragment size f_frsize, which
// Java's File#getTotalSpace multiplies f_blocks by.
func statfsBlockSize(st *unix.Statfs_t) float64 { return float64(st.Frsize) }
