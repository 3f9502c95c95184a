package store

import (
	"errors"
	"sync"

	"golang.org/x/sys/unix"
)

// The macOS half of the store's system calls (sys_unix.go has the shared ones). macOS has no
// fallocate, no fdatasync and no open-file-description locks; this file says what stands in
// for each, and why.

// allocateFile gives fd size bytes of real disk blocks, so that a later write through the
// mapping cannot hit a hole on a full disk (SIGBUS): fcntl(F_PREALLOCATE) reserves the blocks
// past the file's physical end (contiguous if it can, else anywhere), then ftruncate gives the
// file its length. F_PREALLOCATE rather than writing zeros: it reserves a 1 GiB CommitLog
// file in one call instead of writing 1 GiB, and a full disk still fails here (ENOSPC). A file
// system without F_PREALLOCATE (ENOTSUP: SMB, FAT) gets ftruncate alone, a sparse file, as
// Linux does without fallocate.
func allocateFile(fd int, size int64) error {
	st := unix.Fstore_t{Flags: unix.F_ALLOCATECONTIG | unix.F_ALLOCATEALL, Posmode: unix.F_PEOFPOSMODE, Length: size}
	err := unix.FcntlFstore(uintptr(fd), unix.F_PREALLOCATE, &st)
	if err != nil && !notSupported(err) {
		st.Flags = unix.F_ALLOCATEALL // no contiguous run that long: take blocks anywhere
		err = unix.FcntlFstore(uintptr(fd), unix.F_PREALLOCATE, &st)
	}
	if err != nil && !notSupported(err) {
		return err
	}
	return unix.Ftruncate(fd, size)
}

// allocateRange reports that a range inside a file cannot be allocated: F_PREALLOCATE only
// extends a file from its physical end, and writing zeros is not safe (the range may hold
// entries of an index file reopened after a restart). The caller then accepts a sparse file.
// Deviation from the Linux build: an index file on macOS stays sparse, so a disk that fills
// up while it is written can still fault (SIGBUS); the CommitLog and ConsumeQueue files are
// allocated in full (allocateFile).
func allocateRange(fd int, off, n int64) (bool, error) { return false, nil }

// fdatasync forces fd's data to stable storage with fcntl(F_FULLFSYNC). macOS's fsync only
// hands the data to the drive, whose cache a power cut can still lose; F_FULLFSYNC also
// empties that cache, which is what a SYNC_FLUSH answer promises (and what Go's os.File.Sync
// does on macOS). It is slower than fsync — group commit pays it once per group. A file
// system without F_FULLFSYNC (ENOTSUP: SMB) gets fsync.
func fdatasync(fd int) error {
	_, err := unix.FcntlInt(uintptr(fd), unix.F_FULLFSYNC, 0)
	if notSupported(err) {
		return unix.Fsync(fd)
	}
	return err
}

func notSupported(err error) bool {
	return errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EOPNOTSUPP)
}

// lockFileExclusive takes an exclusive flock(2) lock on fd, without waiting. macOS has no
// open-file-description fcntl locks; flock locks, like them, belong to the open file, so a
// second store in the same process fails as on Linux. Whether it also keeps a Java broker
// (which takes a POSIX fcntl record lock) off the store is not relied on.
func lockFileExclusive(fd int) error { return unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) }

func unlockFile(fd int) error { return unix.Flock(fd, unix.LOCK_UN) }

// totalPhysicalMemory is the machine's RAM in bytes (sysctl hw.memsize; 8 GiB when it cannot
// be read).
var totalPhysicalMemory = sync.OnceValue(func() int64 {
	n, err := unix.SysctlUint64("hw.memsize")
	if err != nil || n == 0 {
		return 8 << 30
	}
	return int64(n)
})

// statfsBlockSize is the unit of statfs's block counts (f_bsize, the fundamental block size
// on macOS).
func statfsBlockSize(st *unix.Statfs_t) float64 { return float64(st.Bsize) }
