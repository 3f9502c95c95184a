//go:build !linux && !darwin

package store

// The store maps its files (mmap), allocates their blocks (fallocate, F_PREALLOCATE) and
// locks the store the POSIX way: rocketmq-go is built for Linux and macOS only. On any other
// system — Windows among them — the build stops here, on purpose, with one error that names
// the reason (the undefined identifier below). The functions after it only keep the rest of
// the package from adding errors of its own.
var _ = rocketmqGoBuildsOnLinuxAndMacOSOnlyNotOnThisSystem

func allocateFile(int, int64) error                 { panic("unsupported") }
func allocateRange(int, int64, int64) (bool, error) { panic("unsupported") }
func truncateFile(int, int64) error                 { panic("unsupported") }
func fdatasync(int) error                           { panic("unsupported") }
func flushRange(int, []byte, int, int, bool) error  { panic("unsupported") }
func syncDir(string) error                          { panic("unsupported") }
func mmapFile(int, int) ([]byte, error)             { panic("unsupported") }
func munmap([]byte) error                           { panic("unsupported") }
func mmapAnonymous(int) ([]byte, error)             { panic("unsupported") }
func mlock([]byte) error                            { panic("unsupported") }
func munlock([]byte) error                          { panic("unsupported") }
func madviseWillNeed([]byte)                        { panic("unsupported") }
func lockFileExclusive(int) error                   { panic("unsupported") }
func unlockFile(int) error                          { panic("unsupported") }
func totalPhysicalMemory() int64                    { panic("unsupported") }
func diskPartitionSpaceUsedPercent(string) float64  { panic("unsupported") }
