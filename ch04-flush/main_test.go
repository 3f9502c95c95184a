package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/ch04-flush.golden from this run (review the diff)")

const goldenPath = "testdata/ch04-flush.golden"

// stepLabels returns the label of every step line ("[component] NN Label k=v ..."), in order.
func stepLabels(log string) []string {
	var labels []string
	for _, line := range strings.Split(log, "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && strings.HasPrefix(f[0], "[") && strings.HasSuffix(f[0], "]") && strings.Contains(f[2], "#") {
			labels = append(labels, f[2])
		}
	}
	return labels
}

// TestGolden runs the chapter and compares its whole output — step lines with their values and
// the positions it prints — with the golden file: first the sequence of step labels (the
// flow), then every line (the values).
// `go test ./ch04-flush -update` rewrites it.
func TestGolden(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out, config{Dir: t.TempDir()}))
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(goldenPath), 0o755))
		require.NoError(t, os.WriteFile(goldenPath, out.Bytes(), 0o644))
		t.Logf("rewrote %s", goldenPath)
	}
	golden, err := os.ReadFile(goldenPath)
	require.NoError(t, err, "run with -update to create it")
	if d := cmp.Diff(stepLabels(string(golden)), stepLabels(out.String())); d != "" {
		t.Fatalf("the flow changed: step labels differ from %s (-golden +run):\n%s", goldenPath, d)
	}
	if d := cmp.Diff(strings.Split(string(golden), "\n"), strings.Split(out.String(), "\n")); d != "" {
		t.Fatalf("the log differs from %s (-golden +run):\n%s", goldenPath, d)
	}
}

// The run removes the temp dir it made for itself when no Dir is given.
func TestRunCleansUpItsTempDir(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var out bytes.Buffer
	require.NoError(t, run(&out, config{}))
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Empty(t, entries)
}
