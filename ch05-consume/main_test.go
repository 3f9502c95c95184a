package main

import (
	"flag"
	"io"
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
)

var update = flag.Bool("update", false, "rewrite testdata/ch05-consume.golden from this run (review the diff)")

// TestGolden runs the chapter and compares its whole output — step lines with their values,
// the listener's lines and the offset tables — with the golden file: first the sequence of step
// labels (the flow), then every line. `go test ./ch05-consume -update` rewrites it.
func TestGolden(t *testing.T) { mqtest.Golden(t, "testdata/ch05-consume.golden", *update, runIn) }

// The run removes the temp dir it made for itself when no Dir is given.
func TestRunCleansUpItsTempDir(t *testing.T) { mqtest.RunLeavesNoTempDir(t, runIn) }

func runIn(w io.Writer, dir string) error { return run(w, config{Dir: dir}) }
