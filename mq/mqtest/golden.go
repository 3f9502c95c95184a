package mqtest

import (
	"bytes"
	"flag"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/trace/tracetest"
)

// update is the -update flag of every test binary that links the kit: `go test ./chNN-...
// -update` rewrites the chapter's golden file. A chapter's own binary has no such flag.
var update *bool

func init() {
	if testing.Testing() {
		update = flag.Bool("update", false, "rewrite the golden files from this run (review the diff)")
	}
}

// Golden runs a chapter's scenario (run, with its files in a test temp dir: withDir makes the
// chapter's config for a dir) and compares its whole output with the golden file at path: first
// the sequence of step labels (the flow), then every line (the values). With -update it
// rewrites the file first (review the diff before keeping it).
func Golden[C any](t *testing.T, path string, run func(io.Writer, C) error, withDir func(dir string) C) {
	t.Helper()
	var out bytes.Buffer
	require.NoError(t, run(&out, withDir(t.TempDir())))
	tracetest.CompareGolden(t, path, out.Bytes(), update != nil && *update)
}

// RunLeavesNoTempDir runs the scenario with no dir given (withDir("")) and proves it removed
// the temp dir it made for itself: TMPDIR is empty afterwards.
func RunLeavesNoTempDir[C any](t *testing.T, run func(io.Writer, C) error, withDir func(dir string) C) {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	require.NoError(t, run(io.Discard, withDir("")))
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Empty(t, entries)
}
