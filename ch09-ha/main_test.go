package main

import (
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
)

// TestGolden runs the chapter and compares its whole output — step lines with their values and
// the tables it prints — with the golden file: first the sequence of step labels (the flow),
// then every line (the values). `go test ./ch09-ha -update` rewrites it.
func TestGolden(t *testing.T) { mqtest.Golden(t, "testdata/ch09-ha.golden", run, mqtest.InDir) }

// The run removes the temp dir it made for itself when no Dir is given.
func TestRunCleansUpItsTempDir(t *testing.T) { mqtest.RunLeavesNoTempDir(t, run, mqtest.InDir) }
