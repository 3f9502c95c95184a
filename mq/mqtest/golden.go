package mqtest

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/trace/tracetest"
)

// RunFunc runs a chapter's scenario, writing its output to w and its servers' files under
// dir; with dir "" the run makes a temp dir of its own and removes it at the end.
type RunFunc func(w io.Writer, dir string) error

// Golden runs the chapter in a test temp dir and compares its whole output with the golden
// file at path: first the sequence of step labels (the flow), then every line (the values).
// With update it rewrites the file first (review the diff before keeping it).
func Golden(t *testing.T, path string, update bool, run RunFunc) {
	t.Helper()
	var out bytes.Buffer
	require.NoError(t, run(&out, t.TempDir()))
	tracetest.CompareGolden(t, path, out.Bytes(), update)
}

// RunLeavesNoTempDir runs the chapter with no dir given and proves it removed the temp dir it
// made for itself: TMPDIR is empty afterwards.
func RunLeavesNoTempDir(t *testing.T, run RunFunc) {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	require.NoError(t, run(io.Discard, ""))
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Empty(t, entries)
}
