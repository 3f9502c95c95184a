package main

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/trace/tracetest"
)

var update = flag.Bool("update", false, "rewrite testdata/ch02-producer.golden from this run (review the diff)")

const goldenPath = "testdata/ch02-producer.golden"

// TestGolden runs the chapter and compares its whole output — step lines with their values,
// the send results and the fault tables — with the golden file: first the sequence of step
// labels (the flow), then every line (the values). `go test ./ch02-producer -update` rewrites it.
func TestGolden(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out, config{Dir: t.TempDir()}))
	tracetest.CompareGolden(t, goldenPath, out.Bytes(), *update)
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
