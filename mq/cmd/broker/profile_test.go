package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf/conftest"
)

// lockedBuffer is a bytes.Buffer the broker writes to while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRunCPUProfile: with -cpuprofile mqbroker writes a pprof profile (gzip-compressed
// protobuf) of its run, complete once it shut down; a file that cannot be created stops the
// start with an error naming the flag.
func TestRunCPUProfile(t *testing.T) {
	dir := t.TempDir()
	conf := conftest.Write(t, "broker.conf", "brokerName=broker-prof", "listenPort=0", "bindAddress=127.0.0.1",
		"storePathRootDir="+filepath.Join(dir, "store"), "mappedFileSizeCommitLog=65536", "mappedFileSizeConsumeQueue=2000")
	profile := filepath.Join(dir, "cpu.pprof")
	var out, errOut lockedBuffer
	stop := make(chan os.Signal, 1)
	done := make(chan error, 1)
	go func() { done <- run([]string{"-c", conf, "-cpuprofile", profile}, &out, &errOut, stop) }()
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "boot success") },
		30*time.Second, 10*time.Millisecond, "output: %s %s", out.String(), errOut.String())
	stop <- syscall.SIGINT
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the broker did not shut down")
	}
	b, err := os.ReadFile(profile)
	require.NoError(t, err)
	require.Greater(t, len(b), 2)
	require.Equal(t, []byte{0x1f, 0x8b}, b[:2], "a pprof profile is gzip-compressed")

	err = run([]string{"-c", conf, "-cpuprofile", filepath.Join(dir, "missing", "cpu.pprof")}, &out, &errOut, stop)
	require.ErrorContains(t, err, "cpuprofile: ")
}
