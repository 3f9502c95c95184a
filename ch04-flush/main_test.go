package main

import (
	"flag"
	"io"
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
)

var update = flag.Bool("update", false, "rewrite testdata/ch04-flush.golden from this run (review the diff)")

// TestGolden runs the chapter and compares its whole output — step lines with their values and
// the positions it prints — with the golden file: first the sequence of step labels (the
// flow), then every line (the values).
// `go test ./ch04-flush -update` rewrites it.
func TestGolden(t *testing.T) { mqtest.Golden(t, "testdata/ch04-flush.golden", *update, runIn) }

// The run removes the temp dir it made for itself when no Dir is given.
func TestRunCleansUpItsTempDir(t *testing.T) { mqtest.RunLeavesNoTempDir(t, runIn) }

func runIn(w io.Writer, dir string) error { return run(w, config{Dir: dir}) }
