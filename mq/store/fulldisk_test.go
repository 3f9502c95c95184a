package store

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// mountSmallDisk mounts a tmpfs of size bytes on a new directory and unmounts it at cleanup.
// Without root (or where mounting is not allowed) the test is skipped, saying why.
func mountSmallDisk(t *testing.T, size int) string {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("a full disk needs a small filesystem: mounting a tmpfs needs root (CI runs as root)")
	}
	dir := filepath.Join(t.TempDir(), "disk")
	require.NoError(t, os.Mkdir(dir, 0o755))
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v: %s)", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	return dir
}

// TestFullDisk: a store on a 2 MiB filesystem, a 1 MiB ballast file beside it, and puts until
// the disk is full. The store never dies (no SIGBUS: every file is allocated before it is
// written), puts are refused with RocketMQ's status — SERVICE_NOT_AVAILABLE once the disk
// check found the partition over diskSpaceWarningLevelRatio (90 %), or
// CREATE_MAPPED_FILE_FAILED when the next file cannot be allocated — every acknowledged
// message reads back whole, by queue and by key, and once the ballast is deleted the next disk
// check (the service's 10 s pass, called here directly) lets puts resume.
// Java: CleanCommitLogService#isSpaceFull, DefaultMessageStore#checkStoreStatus,
// MappedFileQueue#getLastMappedFile.
func TestFullDisk(t *testing.T) {
	disk := mountSmallDisk(t, 2<<20)
	ballast := filepath.Join(disk, "ballast")
	require.NoError(t, os.WriteFile(ballast, make([]byte, 1<<20), 0o644))

	cfg := smallConfig(filepath.Join(disk, "store"))
	cfg.MappedFileSizeCommitLog = 64 << 10
	cfg.MaxHashSlotNum, cfg.MaxIndexNum = 64, 400
	cfg.DiskUsage = nil // statfs of the tmpfs
	s := openStore(t, cfg, nil, nil)

	var acked []CommitLogOffset
	var refused PutMessageStatus
	for i := 0; i < 10000; i++ {
		if i%8 == 0 {
			s.IsSpaceFull() // the disk check, as its service runs it
		}
		m := keyedMsg("Full", strings.Repeat("d", 1024), fmt.Sprintf("k%d", i), "")
		r := s.PutMessage(m)
		if r.PutMessageStatus != PutOK {
			refused = r.PutMessageStatus
			break
		}
		acked = append(acked, r.AppendMessageResult.WroteOffset)
		s.DoReput() // the reput service keeps up (it runs every millisecond)
	}
	t.Logf("%d puts acknowledged, then %s", len(acked), refused)
	require.Contains(t, []PutMessageStatus{ServiceNotAvailable, CreateMappedFileFailed}, refused)
	require.Greater(t, len(acked), 100, "the disk held something first")
	require.Equal(t, refused, s.PutMessage(keyedMsg("Full", "again", "again", "")).PutMessageStatus, "refused until space is freed")

	// every acknowledged message reads back
	s.DoReput()
	require.Equal(t, QueueOffset(len(acked)), s.GetMaxOffsetInQueue("Full", 0))
	for k, off := range acked {
		require.Equal(t, off, s.GetCommitLogOffsetInQueue("Full", 0, QueueOffset(k)), "unit %d", k)
		rec, ok := s.SelectOneMessageByOffset(off)
		require.True(t, ok, "message %d", k)
		m, err := decodeRecord(rec)
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf("k%d", k), m.Properties["KEYS"])
	}
	for _, k := range []int{0, len(acked) / 2, len(acked) - 1} {
		require.Len(t, s.QueryMessage("Full", fmt.Sprintf("k%d", k), 4, 0, 1<<62).Messages, 1, "key k%d", k)
	}

	// the operator frees space: puts resume after the next disk check
	require.NoError(t, os.Remove(ballast))
	require.False(t, s.IsSpaceFull())
	r := put(t, s, keyedMsg("Full", "resumed", "resumed", ""))
	require.Equal(t, QueueOffset(len(acked)), r.LogicsOffset)
}
